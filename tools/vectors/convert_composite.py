#!/usr/bin/env python3
# convert_composite.py - the LAMPS composite ML-DSA test vectors (testvectors.json) to the flat
# "name = value" text the composite tests read without a JSON library. Keeps the 18 composite
# entries (the 3 pure ML-DSA ones are covered by the ACVP vectors); values stay base64.
import json
import sys

FIELDS = ("pk", "x5c", "sk", "sk_pkcs8", "s", "sWithContext")


def main(src, dst):
    data = json.load(open(src))
    with open(dst, "w") as out:
        out.write("# Composite ML-DSA test vectors, draft-ietf-lamps-pq-composite-sigs-19.\n")
        out.write("# Source: lamps-wg/draft-composite-sigs src/testvectors.json, commit\n")
        out.write("# 60fcb1e82b90b8cc331166eb783af2925f8ef809; see tests/vectors/composite/README.md.\n")
        out.write("m = %s\nctx = %s\n" % (data["m"], data["ctx"]))
        for t in data["tests"]:
            if t["tcId"].startswith("id-ML-DSA-"):
                continue
            out.write("\ntcId = %s\n" % t["tcId"])
            for f in FIELDS:
                out.write("%s = %s\n" % (f, t[f]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
