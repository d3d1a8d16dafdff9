#!/usr/bin/env python3
"""composite_cli_test.py - the 18 composite ML-DSA algorithms through the `openssl` command line.

Usage: composite_cli_test.py (--openssl BIN | --openssl-env VAR) --provider-dir DIR --vectors FILE CASE...
       composite_cli_test.py --list

Cases: alg:<NAME> (genpkey, pkey, pkeyutl, req -x509, x509, verify for one composite),
vectors:<NAME> (the certificate and PKCS#8 key of the LAMPS draft's vector for it), chain (a composite
CA issuing a leaf of another composite), encrypted_pem, bad_input. Exit status 0 passed,
1 failed, 77 skipped ("skipped: <reason>").
"""
import base64
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_test import Failure, OpenSSL, Skip, check, expect_stderr, run_cases, tlv  # noqa: E402

# The draft's names (without "id-"), in OID order 1.3.6.1.5.5.7.6.37 ... .54.
NAMES = [
    "MLDSA44-RSA2048-PSS-SHA256", "MLDSA44-RSA2048-PKCS15-SHA256", "MLDSA44-Ed25519-SHA512",
    "MLDSA44-ECDSA-P256-SHA256", "MLDSA65-RSA3072-PSS-SHA512", "MLDSA65-RSA3072-PKCS15-SHA512",
    "MLDSA65-RSA4096-PSS-SHA512", "MLDSA65-RSA4096-PKCS15-SHA512", "MLDSA65-ECDSA-P256-SHA512",
    "MLDSA65-ECDSA-P384-SHA512", "MLDSA65-ECDSA-brainpoolP256r1-SHA512", "MLDSA65-Ed25519-SHA512",
    "MLDSA87-ECDSA-P384-SHA512", "MLDSA87-ECDSA-brainpoolP384r1-SHA512", "MLDSA87-Ed448-SHAKE256",
    "MLDSA87-RSA3072-PSS-SHA512", "MLDSA87-RSA4096-PSS-SHA512", "MLDSA87-ECDSA-P521-SHA512",
]


def read_vectors(path):
    """tests/vectors/composite/testvectors.txt: ({name: {field: bytes}}, m, ctx)."""
    tests, top, cur = {}, {}, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            k, v = line.split(" = ", 1)
            if k == "tcId":
                cur = tests.setdefault(v[len("id-"):], {})
            elif cur is None:
                top[k] = base64.b64decode(v)
            else:
                cur[k] = base64.b64decode(v)
    return tests, top["m"], top["ctx"]


def sign_verify(o, key, pub, msg="msg.txt", sig="sig.bin"):
    o.run("pkeyutl", "-sign", "-inkey", key, "-rawin", "-in", msg, "-out", sig)
    p = o.run("pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin", "-in", msg, "-sigfile", sig)
    check(b"Signature Verified Successfully" in p.stdout, "pkeyutl -verify did not verify")


def case_alg(o, name, _vectors):
    o.write("msg.txt", b"composite message\n")
    o.run("genpkey", "-algorithm", name, "-out", "key.pem")
    text = o.run("pkey", "-in", "key.pem", "-text", "-noout").stdout.decode()
    check(text.startswith(name + " Private-Key:"), "pkey -text: " + text[:80])
    check("OID: 1.3.6.1.5.5.7.6.%d" % (37 + NAMES.index(name)) in text, "pkey -text lacks the OID")
    o.run("pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem")
    o.run("pkey", "-in", "key.pem", "-outform", "DER", "-out", "key.der")
    o.run("pkey", "-inform", "DER", "-in", "key.der", "-noout")
    sign_verify(o, "key.pem", "pub.pem")
    # One changed message byte: refused.
    o.write("other.txt", b"composite messagE\n")
    p = o.run("pkeyutl", "-verify", "-pubin", "-inkey", "pub.pem", "-rawin", "-in", "other.txt",
              "-sigfile", "sig.bin", ok=False)
    expect_stderr(p, "signature verification failed")
    o.run("req", "-x509", "-new", "-key", "key.pem", "-subj", "/CN=" + name, "-days", "2", "-out", "cert.pem")
    text = o.run("x509", "-in", "cert.pem", "-noout", "-text").stdout.decode()
    check("Signature Algorithm: " + name in text, "x509 -text does not name " + name)
    o.run("verify", "-CAfile", "cert.pem", "cert.pem")


def case_vector(o, name, vectors):
    """One entry of the draft's vectors: x5c verifies (its signature checked), sk_pkcs8 loads,
    writes back byte for byte and signs what the certificate's key verifies, s verifies."""
    tests, m, _ctx = read_vectors(vectors)
    check(sorted(tests) == sorted(NAMES), "the vector file does not hold the 18 composites")
    o.write("m.bin", m)
    t = tests[name]
    o.write("crt.der", t["x5c"])
    o.write("p8.der", t["sk_pkcs8"])
    o.write("s.bin", t["s"])
    o.run("x509", "-inform", "DER", "-in", "crt.der", "-out", "crt.pem")
    o.run("verify", "-check_ss_sig", "-CAfile", "crt.pem", "crt.pem")
    o.run("pkey", "-inform", "DER", "-in", "p8.der", "-outform", "DER", "-out", "p8.out")
    check(o.read("p8.out") == t["sk_pkcs8"], "PKCS#8 not written back byte for byte")
    o.run("x509", "-in", "crt.pem", "-pubkey", "-noout", "-out", "pub.pem")
    p = o.run("pkeyutl", "-verify", "-pubin", "-inkey", "pub.pem", "-rawin", "-in", "m.bin", "-sigfile", "s.bin")
    check(b"Signature Verified Successfully" in p.stdout, "the vector's s does not verify")
    sign_verify(o, "p8.der", "pub.pem", msg="m.bin", sig="mine.bin")
    # The certificate with one byte of its signature changed fails.
    der = bytearray(t["x5c"])
    der[-10] ^= 1
    o.write("bad.der", bytes(der))
    o.run("x509", "-inform", "DER", "-in", "bad.der", "-out", "bad.pem")
    o.run("verify", "-check_ss_sig", "-CAfile", "bad.pem", "bad.pem", ok=False)


def case_chain(o, _vectors):
    o.run("genpkey", "-algorithm", "MLDSA87-ECDSA-P384-SHA512", "-out", "ca.key")
    o.run("req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=composite CA", "-days", "2",
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
          "-out", "ca.pem")
    o.run("genpkey", "-algorithm", "MLDSA44-Ed25519-SHA512", "-out", "leaf.key")
    o.run("req", "-new", "-key", "leaf.key", "-subj", "/CN=leaf", "-out", "leaf.csr")
    o.run("req", "-verify", "-in", "leaf.csr", "-noout")
    o.run("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
          "-days", "2", "-out", "leaf.pem")
    o.run("verify", "-CAfile", "ca.pem", "leaf.pem")
    # The leaf is not its own CA.
    o.run("verify", "-CAfile", "leaf.pem", "leaf.pem", ok=False)


def case_cms(o, _vectors):
    """CMS signed-data (the LAMPS composite CMS draft: the SignerInfo digest is the composite's
    pre-hash, here SHA-512), detached and binary; one changed content byte fails. OpenSSL 3.5
    and later: 3.0's CMS finds a SignerInfo's signatureAlgorithm only for (digest, key) pairs it
    has a signature OID for, which a composite (one OID, no digest) is not."""
    version = subprocess.run([o.binary, "version"], capture_output=True, text=True).stdout
    m = re.search(r"OpenSSL (\d+)\.(\d+)", version)
    if m is None or (int(m.group(1)), int(m.group(2))) < (3, 5):
        raise Skip("CMS with composites needs OpenSSL 3.5 or later (this is %s)" % version.strip())
    o.run("genpkey", "-algorithm", "MLDSA65-ECDSA-P384-SHA512", "-out", "k.pem")
    o.run("req", "-x509", "-new", "-key", "k.pem", "-subj", "/CN=cms", "-days", "2", "-out", "c.pem")
    o.write("m.txt", b"composite CMS content\n")
    o.run("cms", "-sign", "-binary", "-in", "m.txt", "-signer", "c.pem", "-inkey", "k.pem", "-md", "sha512",
          "-outform", "DER", "-out", "m.cms")
    printed = o.run("cms", "-cmsout", "-print", "-inform", "DER", "-in", "m.cms").stdout.decode()
    check("1.3.6.1.5.5.7.6.46" in printed, "the SignerInfo does not name the composite's OID")
    o.run("cms", "-verify", "-binary", "-inform", "DER", "-in", "m.cms", "-CAfile", "c.pem", "-content", "m.txt",
          "-out", "out.txt")
    check(o.read("out.txt") == o.read("m.txt"), "cms -verify gave other content")
    o.write("m2.txt", b"composite CMS contenT\n")
    o.run("cms", "-verify", "-binary", "-inform", "DER", "-in", "m.cms", "-CAfile", "c.pem", "-content", "m2.txt",
          "-out", "out.txt", ok=False)


def case_encrypted_pem(o, _vectors):
    o.run("genpkey", "-algorithm", "MLDSA65-ECDSA-P384-SHA512", "-aes-256-cbc", "-pass", "pass:secret",
          "-out", "enc.pem")
    check(b"ENCRYPTED PRIVATE KEY" in o.read("enc.pem"), "genpkey -aes-256-cbc did not encrypt")
    o.run("pkey", "-in", "enc.pem", "-passin", "pass:secret", "-pubout", "-out", "pub.pem")
    o.run("pkey", "-in", "enc.pem", "-passin", "pass:wrong", "-noout", ok=False)


def case_bad_input(o, vectors):
    tests, _m, _ctx = read_vectors(vectors)
    name = "MLDSA65-ECDSA-P256-SHA512"
    oid = bytes([0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x06, 0x2D])  # 1.3.6.1.5.5.7.6.45
    algid = tlv(0x30, oid)
    # `openssl pkey` on 3.0 reads keys through OSSL_STORE, which drops the decoders' reasons (it
    # says "Could not read" or "Could not find"); `openssl pkcs8 -nocrypt` keeps them (cli_test.py, malformed_key_files).
    pk = tests[name]["pk"]
    for label, body, alg in (("short", pk[:-1], algid), ("off-curve", pk[:-1] + bytes([pk[-1] ^ 1]), algid),
                             ("params", pk, tlv(0x30, oid + b"\x05\x00"))):
        o.write(label + ".der", tlv(0x30, alg + tlv(0x03, b"\x00" + body)))
        p = o.run("pkey", "-pubin", "-inform", "DER", "-in", label + ".der", "-noout", ok=False)
        check(p.returncode == 1, "%s: exit status %d" % (label, p.returncode))
        expect_stderr(p, "Could not")  # 3.0: "Could not read key", 3.5: "Could not find private key"

    def pkcs8(alg, key):
        return tlv(0x30, bytes([0x02, 0x01, 0x00]) + tlv(0x30, alg) + tlv(0x04, key))

    rsa_sk = tests["MLDSA65-RSA3072-PSS-SHA512"]["sk"]
    oid43 = oid[:-1] + bytes([0x2B])  # .43: MLDSA65-RSA4096-PSS-SHA512
    cases = [  # file, PrivateKeyInfo, reason
        ("short-sk.der", pkcs8(oid, tests[name]["sk"][:-1]), "malformed composite key"),
        ("seed-only.der", pkcs8(oid, tests[name]["sk"][:32]), "malformed composite key"),
        ("rsa-size.der", pkcs8(oid43, rsa_sk), "composite's traditional key of the wrong type, RSA size or curve"),
    ]
    for fname, data, reason in cases:
        o.write(fname, data)
        p = o.run("pkcs8", "-inform", "DER", "-in", fname, "-nocrypt", "-out", "out.pem", ok=False)
        check(p.returncode == 1, "%s: pkcs8 exit status %d" % (fname, p.returncode))
        expect_stderr(p, reason)
    o.write("good.der", pkcs8(oid, tests[name]["sk"]))
    o.run("pkcs8", "-inform", "DER", "-in", "good.der", "-nocrypt", "-out", "good.pem")
    # A digest named for a composite, and a context string over 255 bytes.
    o.run("genpkey", "-algorithm", name, "-out", "key.pem")
    o.write("msg.txt", b"m")
    p = o.run("pkeyutl", "-sign", "-inkey", "key.pem", "-rawin", "-digest", "sha256", "-in", "msg.txt",
              "-out", "sig.bin", ok=False)
    err = p.stderr.decode(errors="replace")  # 3.0: the provider's reason; 3.5: pkeyutl refuses -digest itself
    check("unsupported digest" in err or "-digest (prehash) is not supported" in err, "pkeyutl -digest: " + err)
    p = o.run("pkeyutl", "-sign", "-inkey", "key.pem", "-rawin", "-in", "msg.txt", "-out", "sig.bin",
              "-pkeyopt", "hexcontext-string:" + "ab" * 256, ok=False)
    expect_stderr(p, "context string longer than 255 bytes")


CASES = {"alg:" + n: (lambda o, v, n=n: case_alg(o, n, v)) for n in NAMES}
CASES.update({"vectors:" + n: (lambda o, v, n=n: case_vector(o, n, v)) for n in NAMES})
CASES.update({"cms": case_cms, "chain": case_chain, "encrypted_pem": case_encrypted_pem,
              "bad_input": case_bad_input})


def main():
    return run_cases(CASES, __doc__.splitlines()[0], "mldsa-composite-")


if __name__ == "__main__":
    sys.exit(main())
