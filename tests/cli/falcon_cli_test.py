#!/usr/bin/env python3
"""falcon_cli_test.py - round-3 Falcon through the real `openssl`.

Usage: falcon_cli_test.py (--openssl BIN | --openssl-env VAR) --provider-dir DIR CASE...
       falcon_cli_test.py --list

The same cases run on the system OpenSSL (3.0) and on OpenSSL 3.5
(--openssl-env OPENSSL35; skipped when the variable is unset). Each CASE runs
in a fresh temporary directory; exit status 0 passed, 1 failed, 77 skipped
("skipped: <reason>").
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_test  # noqa: E402
from cli_test import Failure, check, der_children, expect_stderr, key_text, tlv  # noqa: E402
from round3_cli_test import OpenSSL, tls_gated_by_setting  # noqa: E402


# oqs-provider's names and OIDs (1.3.9999.3.x); sizes (pk, sk, longest signature), logn.
FALCON = {
    "falcon512": {"oid": "2bce0f030b", "dotted": "1.3.9999.3.11", "pk": 897, "sk": 1281, "sig": 752, "logn": 9,
                  "padded": False},
    "falconpadded512": {"oid": "2bce0f0310", "dotted": "1.3.9999.3.16", "pk": 897, "sk": 1281, "sig": 666,
                        "logn": 9, "padded": True},
    "falcon1024": {"oid": "2bce0f030e", "dotted": "1.3.9999.3.14", "pk": 1793, "sk": 2305, "sig": 1462, "logn": 10,
                   "padded": False},
    "falconpadded1024": {"oid": "2bce0f0313", "dotted": "1.3.9999.3.19", "pk": 1793, "sk": 2305, "sig": 1280,
                         "logn": 10, "padded": True},
}


def oid(name):
    return tlv(0x06, bytes.fromhex(FALCON[name]["oid"]))


def spki(name, pk):
    return tlv(0x30, tlv(0x30, oid(name)) + tlv(0x03, b"\x00" + pk))


def pkcs8(name, payload):
    return tlv(0x30, tlv(0x02, b"\x00") + tlv(0x30, oid(name)) + tlv(0x04, payload))


# --- cases ------------------------------------------------------------------------

def falcon_keys(o, v):
    """genpkey (by name and by OID) / pkey: PEM and DER, SubjectPublicKeyInfo with the raw pk,
    PKCS#8 as oqs-provider writes it (OCTET STRING of sk || pk), the sk-only and bare
    layouts read too, -text, encrypted PEM."""
    for name, s in FALCON.items():
        for alias in (name, s["dotted"]):
            o.run("genpkey", "-algorithm", alias, "-out", "k.pem")
        check(o.read("k.pem").startswith(b"-----BEGIN PRIVATE KEY-----"), "PEM label")
        head, b = key_text(o, "k.pem")
        check(head == name + " Private-Key:", "text header: %r" % head)
        check(len(b.get("priv", b"")) == s["sk"] and len(b.get("pub", b"")) == s["pk"], name + ": priv/pub sizes")
        check(b["priv"][0] == 0x50 + s["logn"] and b["pub"][0] == s["logn"], name + ": header bytes")
        o.run("pkey", "-in", "k.pem", "-pubout", "-outform", "DER", "-out", "pub.der")
        check(o.read("pub.der") == spki(name, b["pub"]), name + ": SubjectPublicKeyInfo is not OID + raw pk")
        o.run("pkey", "-in", "k.pem", "-outform", "DER", "-out", "k.der")
        kids = der_children(o.read("k.der"))
        check(kids[1] == (0x30, oid(name)), name + ": AlgorithmIdentifier (OID, no parameters)")
        check(kids[2] == (0x04, tlv(0x04, b["priv"] + b["pub"])), name + ": PKCS#8 is not OCTET STRING(sk || pk)")
        for i, payload in enumerate((tlv(0x04, b["priv"]), b["priv"] + b["pub"], b["priv"])):
            o.write("alt%d.der" % i, pkcs8(name, payload))
            _, alt = key_text(o, "alt%d.der" % i, "-inform", "DER")
            check(alt.get("priv") == b["priv"] and alt.get("pub") == b["pub"], name + ": layout %d" % i)
        p = o.run("pkey", "-in", "k.pem", "-aes256", "-passout", "pass:falcon")
        o.write("enc.pem", p.stdout)
        check(b"ENCRYPTED PRIVATE KEY" in p.stdout, "encrypted PEM")
        _, dec = key_text(o, "enc.pem", "-passin", "pass:falcon")
        check(dec.get("priv") == b["priv"], name + ": encrypted round trip")


def falcon_sign_verify(o, v):
    """pkeyutl -sign -rawin / -verify -rawin: liboqs's signature bytes (header 0x30 + logn,
    40-byte nonce, compressed s2; padded: exactly 666 / 1280), randomized, and a named
    reason for each malformed signature."""
    msg = b"Falcon through mldsa-accel\n" * 5
    o.write("msg", msg)
    o.write("other", msg + b"!")
    for name, s in FALCON.items():
        o.run("genpkey", "-algorithm", name, "-out", "k.pem")
        o.run("pkey", "-in", "k.pem", "-pubout", "-out", "pub.pem")
        o.sign("k.pem", "msg", "s1")
        o.sign("k.pem", "msg", "s2")
        s1, s2 = o.read("s1"), o.read("s2")
        check(s1[0] == 0x30 + s["logn"], name + ": header byte %#x" % s1[0])
        check(len(s1) == s["sig"] if s["padded"] else 41 < len(s1) <= s["sig"], name + ": length %d" % len(s1))
        check(s1[1:41] != s2[1:41], name + ": two signatures with the same nonce")
        check(o.verified("pub.pem", "msg", "s1") and o.verified("pub.pem", "msg", "s2"), name + ": verify")
        check(not o.verified("pub.pem", "other", "s1"), name + ": verified another message")
        bad = {
            "wrong Falcon signature header byte": bytes([s1[0] ^ 1]) + s1[1:],
            "wrong length for a Falcon signature": s1[:41],
        }
        if s["padded"]:
            bad["bytes after the Falcon signature"] = s1[:-1] + b"\x5a"
        else:
            bad["bytes after the Falcon signature"] = s1 + b"\x00"
            bad["malformed compressed Falcon signature"] = s1[:60]
        for reason, sig in bad.items():
            o.write("bad", sig)
            p = o.run("pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-in", "msg", "-sigfile", "bad",
                      ok=False)
            expect_stderr(p, reason)


def falcon_bad_keys(o, v):
    """Key files with bad content under a Falcon OID: each refused, private keys with their reason.
    (`pkey` on 3.0 loads through OSSL_STORE, which drops the decoders' errors: it says only
    "Could not read"; `pkcs8` keeps them. The public keys' reasons are checked through EVP in
    tests/falcon/falcon_provider_test.cc.)"""
    o.run("genpkey", "-algorithm", "falcon512", "-out", "k.pem")
    _, b = key_text(o, "k.pem")
    sk, pk = b["priv"], b["pub"]
    cases = {
        "wrong length for a Falcon key": spki("falcon512", pk[:-1]),
        "malformed Falcon key": spki("falcon512", bytes([pk[0] ^ 3]) + pk[1:]),
    }
    for reason, der in cases.items():
        o.write("bad.der", der)
        p = o.run("pkey", "-pubin", "-inform", "DER", "-in", "bad.der", "-noout", ok=False)
        check(p.returncode == 1, "%s: exit status %d" % (reason, p.returncode))
    # A coefficient of F (8 bits each, the last 512 bytes) one off, kept inside [-127, 127].
    f_changed = bytearray(sk)
    i = next(j for j in range(len(sk) - 512, len(sk)) if sk[j] not in (0x7F, 0x81))
    f_changed[i] = (f_changed[i] + 1) & 0xFF
    o.run("genpkey", "-algorithm", "falcon512", "-out", "k2.pem")
    other_pk = key_text(o, "k2.pem")[1]["pub"]
    cases = {
        "F does not satisfy f G - g F = q": pkcs8("falcon512", tlv(0x04, bytes(f_changed) + pk)),
        "wrong length for a Falcon key": pkcs8("falcon512", tlv(0x04, sk + pk + b"\x00")),
        "public key does not match the private key": pkcs8("falcon512", tlv(0x04, sk + other_pk)),
    }
    for reason, der in cases.items():
        o.write("bad.der", der)
        p = o.run("pkey", "-inform", "DER", "-in", "bad.der", "-noout", ok=False)
        check(p.returncode == 1, "%s: exit status %d" % (reason, p.returncode))
        p = o.run("pkcs8", "-inform", "DER", "-in", "bad.der", "-nocrypt", "-out", "out.pem", ok=False)
        expect_stderr(p, reason)
    # The intact key loads both ways.
    o.write("good.der", pkcs8("falcon512", tlv(0x04, sk + pk)))
    o.run("pkey", "-inform", "DER", "-in", "good.der", "-noout")
    o.run("pkcs8", "-inform", "DER", "-in", "good.der", "-nocrypt", "-out", "good.pem")


def falcon_x509(o, v):
    """req -x509 self-signed, a leaf issued by a Falcon CA, verify; a flipped bit breaks it."""
    cli_test.make_ca(o, "ca", "falcon1024")
    text = o.run("x509", "-in", "ca.pem", "-noout", "-text").stdout.decode()
    check("Signature Algorithm: falcon1024" in text, "signature algorithm:\n" + text[:800])
    check("Public Key Algorithm: falcon1024" in text, "public key algorithm")
    p = o.run("verify", "-CAfile", "ca.pem", "ca.pem")
    check(b"ca.pem: OK" in p.stdout, "self-signed verify: %r" % p.stdout)
    for leaf in ("falcon512", "falconpadded512", "falconpadded1024"):
        o.run("req", "-new", "-newkey", leaf, "-nodes", "-keyout", "leaf.key", "-subj", "/CN=" + leaf, "-out", "leaf.csr")
        p = o.run("req", "-verify", "-in", "leaf.csr", "-noout")
        check(b"verify OK" in p.stdout + p.stderr, leaf + ": CSR self-signature")
        o.run("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
              "-out", "leaf.pem")
        p = o.run("verify", "-CAfile", "ca.pem", "leaf.pem")
        check(b"leaf.pem: OK" in p.stdout, leaf + ": verify output: %r" % p.stdout)
    der = bytearray(o.run("x509", "-in", "leaf.pem", "-outform", "DER").stdout)
    der[-10] ^= 1
    o.write("bad.der", bytes(der))
    o.run("x509", "-inform", "DER", "-in", "bad.der", "-out", "bad.pem")
    o.run("verify", "-CAfile", "ca.pem", "bad.pem", ok=False)


def falcon_tls(o, v):
    """TLS 1.3 with a Falcon certificate: oqs-provider's code points, offered only with
    tls_falcon = yes (libssl 3.2+ reads them)."""
    tls_gated_by_setting(o, "falcon1024", "falcon512", "tls_falcon", "0xfed7", "Falcon")


CASES = {f.__name__: f for f in [falcon_keys, falcon_sign_verify, falcon_bad_keys, falcon_x509, falcon_tls]}


def main():
    return cli_test.run_cases(CASES, __doc__.splitlines()[0], "mldsa-falcon-", OpenSSL, vectors=False)


if __name__ == "__main__":
    sys.exit(main())
