#!/usr/bin/env python3
"""bulk_stream.py - JSON Lines for the bulk tool's stream mode (docs/BULK.md),
for tests/gpu/device_check.sh's million-item runs without a million files.

  bulk_stream.py records N        N sign records on stdout: {"id": i, "msg": B64}
                                  with a distinct 32-byte message each
  bulk_stream.py to-verify N      sign results (stdin) -> verify records, the
                                  message made again from the id; fails on an
                                  error result or on a count other than N
  bulk_stream.py check-verify N   verify results (stdin): N lines, every one ok"""
import base64
import hashlib
import json
import sys


def message(i):
    return hashlib.sha256(b"mldsa-accel bulk %d" % i).digest()


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    out = sys.stdout
    if mode == "records":
        for i in range(n):
            out.write('{"id":%d,"msg":"%s"}\n' % (i, base64.b64encode(message(i)).decode()))
        return 0
    seen = 0
    for line in sys.stdin:
        r = json.loads(line)
        if mode == "to-verify":
            if "sig" not in r:
                print("bulk_stream: sign result without a signature: %s" % line.strip()[:200], file=sys.stderr)
                return 1
            out.write('{"id":%d,"msg":"%s","sig":"%s"}\n'
                      % (r["id"], base64.b64encode(message(r["id"])).decode(), r["sig"]))
        elif r.get("ok") is not True:
            print("bulk_stream: verify failed: %s" % line.strip()[:200], file=sys.stderr)
            return 1
        seen += 1
    if seen != n:
        print("bulk_stream: %d results, expected %d" % (seen, n), file=sys.stderr)
        return 1
    if mode == "check-verify":
        print("bulk_stream: %d of %d verified" % (seen, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
