#!/usr/bin/env python3
"""round3_cli_test.py - round-3 Dilithium and HashML-DSA through the real `openssl`.

Usage: round3_cli_test.py (--openssl BIN | --openssl-env VAR) --provider-dir DIR --vectors DIR CASE...
       round3_cli_test.py --list

The same cases run on the system OpenSSL (3.0) and on OpenSSL 3.5
(--openssl-env OPENSSL35; skipped when the variable is unset). Each CASE runs
in a fresh temporary directory; exit status 0 passed, 1 failed, 77 skipped
("skipped: <reason>").
"""
import hashlib
import os
import re
import socket
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_test  # noqa: E402  (DER helpers and the openssl runner)
from cli_test import Failure, Skip, check, der_children, expect_stderr, key_text, tlv  # noqa: E402


# Round-3 Dilithium: oqs-provider's names and OIDs (1.3.6.1.4.1.2.267.7.*), sizes
# (pk, sk, sig), and the ML-DSA set of the same shape.
ROUND3 = {
    "dilithium2": {"kat": "Dilithium2", "oid": "2b0601040102820b070404", "pk": 1312, "sk": 2528, "sig": 2420,
                   "twin": "ML-DSA-44"},
    "dilithium3": {"kat": "Dilithium3", "oid": "2b0601040102820b070605", "pk": 1952, "sk": 4000, "sig": 3293,
                   "twin": "ML-DSA-65"},
    "dilithium5": {"kat": "Dilithium5", "oid": "2b0601040102820b070807", "pk": 2592, "sk": 4864, "sig": 4595,
                   "twin": "ML-DSA-87"},
}
# FIPS 204's hashes as ACVP names them (OpenSSL's own names too), and Python's.
HASHES = {
    "SHA2-224": "sha224", "SHA2-256": "sha256", "SHA2-384": "sha384", "SHA2-512": "sha512",
    "SHA2-512/224": "sha512_224", "SHA2-512/256": "sha512_256", "SHA3-224": "sha3_224", "SHA3-256": "sha3_256",
    "SHA3-384": "sha3_384", "SHA3-512": "sha3_512", "SHAKE-128": "shake_128", "SHAKE-256": "shake_256",
}


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def r3_oid(name):
    return tlv(0x06, bytes.fromhex(ROUND3[name]["oid"]))


def r3_spki(name, pk):
    return tlv(0x30, tlv(0x30, r3_oid(name)) + tlv(0x03, b"\x00" + pk))


def r3_pkcs8(name, payload):
    return tlv(0x30, tlv(0x02, b"\x00") + tlv(0x30, r3_oid(name)) + tlv(0x04, payload))


def digest(hash_name, msg):
    h = hashlib.new(HASHES[hash_name], msg)
    if hash_name.startswith("SHAKE"):
        return h.digest(32 if hash_name == "SHAKE-128" else 64)
    return h.digest()


def read_records(path):
    """The records of a "name = value" vector file (ACVP text or NIST .rsp)."""
    out, rec = [], {}
    with open(path) as f:
        for line in list(f) + [""]:
            line = line.rstrip("\n")
            if not line.strip():
                if rec:
                    out.append(rec)
                rec = {}
            elif not line.startswith("#") and " = " in line:
                k, v = line.split(" = ", 1)
                rec[k] = v
    return out


class OpenSSL(cli_test.OpenSSL):
    """cli_test's runner with the property query that picks this provider
    (OpenSSL 3.5 has its own ML-DSA in the default provider)."""

    def provider_args(self, default_first=False):
        return super().provider_args(default_first) + ["-propquery", "?provider=mldsa-accel"]

    def version(self):
        out = subprocess.run([self.binary, "version"], capture_output=True, text=True).stdout
        m = re.search(r"OpenSSL (\d+)\.(\d+)", out)
        return (int(m.group(1)), int(m.group(2))) if m else (0, 0)

    def sign(self, key, msg, out, *opts, rawin=True, ok=True):
        args = ["-sign"] + (["-rawin"] if rawin else []) + ["-inkey", key, "-in", msg, "-out", out]
        for opt in opts:
            args += ["-pkeyopt", opt]
        return self.run("pkeyutl", *args, ok=ok)

    def verified(self, pub, msg, sig, *opts, rawin=True, keyform="PEM"):
        args = ["-verify"] + (["-rawin"] if rawin else []) + ["-pubin", "-keyform", keyform, "-inkey", pub,
                                                                "-in", msg, "-sigfile", sig]
        for opt in opts:
            args += ["-pkeyopt", opt]
        argv = [self.binary, "pkeyutl"] + self.provider_args() + args
        env = dict(os.environ)
        env.pop("OPENSSL_CONF", None)
        print("$ openssl " + " ".join(argv[1:]))
        p = subprocess.run(argv, cwd=self.dir, env=env, capture_output=True, timeout=120)
        return p.returncode == 0 and b"Signature Verified Successfully" in p.stdout


# --- round-3 Dilithium ---------------------------------------------------------

def dilithium_keys(o, v):
    """genpkey / pkey: PEM and DER, SubjectPublicKeyInfo with the raw pk,
    PKCS#8 as oqs-provider wrote it (sk || pk), sk alone read too, -text, encrypted PEM."""
    for name, s in ROUND3.items():
        for alias in (name, s["kat"], name.upper()):
            o.run("genpkey", "-algorithm", alias, "-out", "k.pem")
        check(o.read("k.pem").startswith(b"-----BEGIN PRIVATE KEY-----"), "PEM label")
        head, b = key_text(o, "k.pem")
        check(head == s["kat"] + " Private-Key:", "text header: %r" % head)
        check(len(b.get("priv", b"")) == s["sk"] and len(b.get("pub", b"")) == s["pk"], "priv/pub sizes")
        o.run("pkey", "-in", "k.pem", "-pubout", "-outform", "DER", "-out", "pub.der")
        check(o.read("pub.der") == r3_spki(name, b["pub"]), name + ": SubjectPublicKeyInfo is not OID + raw pk")
        o.run("pkey", "-in", "k.pem", "-outform", "DER", "-out", "k.der")
        kids = der_children(o.read("k.der"))
        check(kids[1] == (0x30, r3_oid(name)), name + ": AlgorithmIdentifier (OID, no parameters)")
        check(kids[2] == (0x04, tlv(0x04, b["priv"] + b["pub"])), name + ": PKCS#8 is not OCTET STRING(sk || pk)")
        # The sk-only layout (oqs-provider built with NOPUBKEY_IN_PRIVKEY) loads to the same key.
        o.write("sk-only.der", r3_pkcs8(name, tlv(0x04, b["priv"])))
        check(key_text(o, "sk-only.der", "-inform", "DER")[1]["pub"] == b["pub"], name + ": sk-only layout")
        head, pb = key_text(o, "pub.der", "-pubin", "-inform", "DER")
        check(head == s["kat"] + " Public-Key:" and pb["pub"] == b["pub"], name + ": public text")
    o.run("pkey", "-in", "k.pem", "-aes256", "-passout", "pass:x", "-out", "enc.pem")
    check(key_text(o, "enc.pem", "-passin", "pass:x")[1]["priv"] == b["priv"], "encrypted round trip")


def dilithium_known_answers(o, v):
    """The round-3 KATs through pkeyutl: a PKCS#8 file made from the KAT sk signs
    deterministically to the KAT signature; an SPKI made from the KAT pk (OID +
    raw pk) verifies it over the raw message (-rawin, no context)."""
    for name, s in ROUND3.items():
        path = os.path.join(v, "dilithium-round3", "PQCsignKAT_%s.rsp" % s["kat"])
        for r in read_records(path):
            msg, pk, sk, sm = (bytes.fromhex(r[k]) for k in ("msg", "pk", "sk", "sm"))
            sig = sm[:s["sig"]]
            o.write("msg", msg)
            o.write("pub.der", r3_spki(name, pk))
            o.write("kat.sig", sig)
            check(o.verified("pub.der", "msg", "kat.sig", keyform="DER"), "%s count %s: KAT signature" % (name, r["count"]))
            for layout in (sk + pk, sk):
                o.write("k.der", r3_pkcs8(name, tlv(0x04, layout)))
                o.run("pkey", "-inform", "DER", "-in", "k.der", "-out", "k.pem")
                o.sign("k.pem", "msg", "det.sig", "deterministic:1")
                check(o.read("det.sig") == sig, "%s count %s: deterministic signature differs from the KAT" %
                      (name, r["count"]))
            o.write("msg2", msg[:-1] + bytes([msg[-1] ^ 1]))
            check(not o.verified("pub.der", "msg2", "kat.sig", keyform="DER"), name + ": changed message verified")


def dilithium_sign_rules(o, v):
    """Randomized by default, deterministic on request; no context string, no
    fixed randomness, no HashML-DSA; dgst streams; the ML-DSA set of the same
    shape accepts neither the key nor the signatures."""
    name = "dilithium2"
    o.run("genpkey", "-algorithm", name, "-out", "k.pem")
    o.run("pkey", "-in", "k.pem", "-pubout", "-out", "pub.pem")
    o.write("msg", b"round 3 message\n" * 50)
    o.sign("k.pem", "msg", "r1")
    o.sign("k.pem", "msg", "r2")
    check(o.read("r1") != o.read("r2"), "randomized signatures are equal")
    o.sign("k.pem", "msg", "d1", "deterministic:1")
    o.sign("k.pem", "msg", "d2", "deterministic:1")
    check(o.read("d1") == o.read("d2") and len(o.read("d1")) == ROUND3[name]["sig"], "deterministic signatures")
    for sig in ("r1", "r2", "d1"):
        check(o.verified("pub.pem", "msg", sig), sig + " does not verify")
    expect_stderr(o.sign("k.pem", "msg", "x", "context-string:abc", ok=False), "round-3 Dilithium has no context string")
    expect_stderr(o.sign("k.pem", "msg", "x", "hash-ml-dsa:SHA2-256", ok=False), "HashML-DSA needs an ML-DSA key")
    o.sign("k.pem", "msg", "x", "hextest-entropy:" + "00" * 32, ok=False)
    check(not o.verified("pub.pem", "msg", "d1", "context-string:abc"), "verified with a context string")
    o.run("dgst", "-sign", "k.pem", "-out", "dg.sig", "msg")
    check(o.verified("pub.pem", "msg", "dg.sig"), "dgst signature does not verify one-shot")
    # The same public key bytes under the ML-DSA OID: the signature does not verify.
    _, b = key_text(o, "k.pem")
    o.write("as-mldsa.der", cli_test.spki(ROUND3[name]["twin"], b["pub"]))
    check(not o.verified("as-mldsa.der", "msg", "d1", keyform="DER"), "an ML-DSA key accepted a Dilithium signature")
    # An ML-DSA-44 signature is not accepted under a Dilithium2 key with its pk bytes.
    o.run("genpkey", "-algorithm", "ML-DSA-44", "-out", "ml.pem")
    o.sign("ml.pem", "msg", "ml.sig")
    _, mb = key_text(o, "ml.pem")
    o.write("ml-as-r3.der", r3_spki(name, mb["pub"]))
    check(not o.verified("ml-as-r3.der", "msg", "ml.sig", keyform="DER"), "a Dilithium key accepted an ML-DSA signature")
    # A Dilithium sk under the ML-DSA OID (the lengths differ) is refused.
    o.write("r3-as-ml.der", cli_test.pkcs8(ROUND3[name]["twin"], tlv(0x04, b["priv"])))
    o.run("pkey", "-inform", "DER", "-in", "r3-as-ml.der", "-noout", ok=False)


def dilithium_x509(o, v):
    """req -x509 / x509 -req / verify with Dilithium certificates."""
    cli_test.make_ca(o, "ca", "dilithium5")
    text = o.run("x509", "-in", "ca.pem", "-noout", "-text").stdout.decode()
    check(re.search(r"Signature Algorithm: dilithium5", text), "signature algorithm:\n" + text[:600])
    check(re.search(r"Public Key Algorithm: dilithium5", text), "public key algorithm")
    check(b"ca.pem: OK" in o.run("verify", "-CAfile", "ca.pem", "ca.pem").stdout, "self-signed verify")
    der = o.run("x509", "-in", "ca.pem", "-outform", "DER").stdout
    check(der.count(tlv(0x30, r3_oid("dilithium5"))) == 3, "AlgorithmIdentifier with absent parameters (tbs, spki, sig)")
    cli_test.make_ca(o, "other", "dilithium5")
    o.run("req", "-new", "-newkey", "dilithium2", "-nodes", "-keyout", "leaf.key", "-subj", "/CN=leaf", "-out", "leaf.csr")
    o.run("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
          "-out", "leaf.pem")
    check(b"leaf.pem: OK" in o.run("verify", "-CAfile", "ca.pem", "leaf.pem").stdout, "leaf verify")
    o.run("verify", "-CAfile", "other.pem", "leaf.pem", ok=False)


def tls_gated_by_setting(o, root, leaf, setting, code_point, family):
    """TLS 1.3 with a `leaf` certificate under a `root` CA, whose signature scheme (code_point)
    the provider offers only with `setting` (tls_dilithium, tls_falcon) = yes: refused by
    s_server with the setting off; with it on at the server, negotiated only by a client that
    has it on too. libssl 3.2+ reads provider signature schemes (older ones skip)."""
    if o.version() < (3, 2):
        raise Skip("libssl %d.%d has no provider signature schemes (TLS-SIGALG needs 3.2+)" % o.version())
    cli_test.make_ca(o, "root", root)
    o.run("req", "-new", "-newkey", leaf, "-nodes", "-keyout", "leaf.key", "-subj", "/CN=localhost",
          "-out", "leaf.csr")
    o.write("ext", b"subjectAltName=DNS:localhost\n")
    o.run("x509", "-req", "-in", "leaf.csr", "-CA", "root.pem", "-CAkey", "root.key", "-set_serial", "2",
          "-days", "1", "-extfile", "ext", "-out", "leaf.pem")

    def env_with(value):
        env = dict(os.environ)
        env.pop("OPENSSL_CONF", None)
        env["MLDSA_ACCEL_" + setting.upper()] = value
        return env

    # Off (the default) on the server: libssl knows no such certificate type.
    p = subprocess.run([o.binary, "s_server"] + o.provider_args() + [
        "-accept", "127.0.0.1:%d" % free_port(), "-cert", "leaf.pem", "-key", "leaf.key", "-tls1_3", "-naccept", "1"],
        cwd=o.dir, env=env_with("no"), stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    check(p.returncode != 0 and b"unknown certificate type" in p.stdout + p.stderr,
          "s_server took a %s certificate with %s off" % (family, setting))
    # On at the server; on, then off, at the client.
    for client in ("yes", "no"):
        port = free_port()
        server = subprocess.Popen([o.binary, "s_server"] + o.provider_args() + [
            "-accept", "127.0.0.1:%d" % port, "-cert", "leaf.pem", "-key", "leaf.key", "-tls1_3",
            "-naccept", "1", "-www"], cwd=o.dir, env=env_with("yes"), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            timer = threading.Timer(30, server.kill)  # s_server prints ACCEPT once it listens
            timer.start()
            line = b"-"
            while line and not line.startswith(b"ACCEPT"):
                line = server.stdout.readline()
            timer.cancel()
            check(line.startswith(b"ACCEPT"), "s_server did not start")
            c = subprocess.run([o.binary, "s_client"] + o.provider_args() + [
                "-connect", "127.0.0.1:%d" % port, "-tls1_3", "-CAfile", "root.pem", "-verify_return_error",
                "-sigalgs", leaf, "-ign_eof"], cwd=o.dir, env=env_with(client),
                input=b"GET / HTTP/1.0\r\n\r\n", capture_output=True, timeout=60)
            out = (c.stdout + c.stderr).decode(errors="replace")
            print("$ s_client -sigalgs %s (client %s = %s): rc %d" % (leaf, setting, client, c.returncode))
            if client == "yes":
                check(c.returncode == 0 and "Peer signature type: " + leaf in out and "Verify return code: 0" in out,
                      "TLS 1.3 with %s (%s):\n" % (leaf, code_point) + out[-2000:])
            else:
                check(c.returncode != 0 and "Peer signature type: " + leaf not in out,
                      "%s negotiated although the client has %s off:\n" % (leaf, setting) + out[-2000:])
        finally:
            server.kill()
            server.wait()


def dilithium_tls(o, v):
    """TLS 1.3 with a Dilithium certificate: oqs-provider's code points, offered
    only with tls_dilithium = yes (libssl 3.2+ reads them)."""
    tls_gated_by_setting(o, "dilithium5", "dilithium3", "tls_dilithium", "0xfea3", "Dilithium")


# --- HashML-DSA ----------------------------------------------------------------

def hash_ml_dsa_every_hash(o, v):
    """pkeyutl -rawin -pkeyopt hash-ml-dsa:<hash> with each FIPS 204 hash: a
    signature verifies only as HashML-DSA with that hash. On 3.0, pkeyutl without
    -rawin signs a digest made elsewhere to the same signature (3.5's pkeyutl
    reads the input of an ML-DSA key as the message always)."""
    o.run("genpkey", "-algorithm", "ML-DSA-65", "-out", "k.pem")
    o.run("pkey", "-in", "k.pem", "-pubout", "-out", "pub.pem")
    msg = b"HashML-DSA message\n" * 40
    o.write("msg", msg)
    o.sign("k.pem", "msg", "pure.sig", "deterministic:1")
    digest_input = o.version() < (3, 5)
    names = list(HASHES)
    for i, h in enumerate(names):
        opt = "hash-ml-dsa:" + h
        o.sign("k.pem", "msg", "h.sig", opt, "deterministic:1")
        check(o.verified("pub.pem", "msg", "h.sig", opt), h + ": does not verify")
        check(not o.verified("pub.pem", "msg", "h.sig"), h + ": verifies as pure ML-DSA")
        check(not o.verified("pub.pem", "msg", "pure.sig", opt), h + ": a pure signature verifies as HashML-DSA")
        other = names[(i + 1) % len(names)]
        check(not o.verified("pub.pem", "msg", "h.sig", "hash-ml-dsa:" + other), h + ": verifies with " + other)
        if digest_input:
            o.write("digest", digest(h, msg))
            o.sign("k.pem", "digest", "d.sig", opt, "deterministic:1", rawin=False)
            check(o.read("d.sig") == o.read("h.sig"), h + ": signing the digest differs from signing the message")
            check(o.verified("pub.pem", "digest", "h.sig", opt, rawin=False), h + ": digest input does not verify")
    # OpenSSL's spellings work too.
    for alias, h in (("SHA256", "SHA2-256"), ("sha512-256", "SHA2-512/256"), ("SHAKE128", "SHAKE-128")):
        o.sign("k.pem", "msg", "a.sig", "hash-ml-dsa:" + alias, "deterministic:1")
        o.sign("k.pem", "msg", "b.sig", "hash-ml-dsa:" + h, "deterministic:1")
        check(o.read("a.sig") == o.read("b.sig"), alias + " is not " + h)
    # With a context string.
    o.sign("k.pem", "msg", "c.sig", "hash-ml-dsa:SHA3-256", "context-string:ctx")
    check(o.verified("pub.pem", "msg", "c.sig", "hash-ml-dsa:SHA3-256", "context-string:ctx"), "context")
    check(not o.verified("pub.pem", "msg", "c.sig", "hash-ml-dsa:SHA3-256", "context-string:ctX"), "other context")
    expect_stderr(o.sign("k.pem", "msg", "x", "hash-ml-dsa:MD5", ok=False), "unsupported digest for ML-DSA")


def hash_ml_dsa_known_answers(o, v):
    """NIST ACVP sigGen (FIPS204-tr1) HashML-DSA cases through pkeyutl, one per
    hash and parameter set: the signatures are NIST's byte for byte."""
    seen = set()
    for r in read_records(os.path.join(v, "sigGen-tr1.txt")):
        if r.get("preHash") != "preHash" or (r["parameterSet"], r["hashAlg"]) in seen:
            continue
        seen.add((r["parameterSet"], r["hashAlg"]))
        name = r["parameterSet"]
        if r["keyFormat"] == "seed":
            o.run("genpkey", "-algorithm", name, "-pkeyopt", "hexseed:" + r["seed"], "-out", "k.pem")
        else:
            o.write("k.der", cli_test.pkcs8(name, tlv(0x04, bytes.fromhex(r["sk"]))))
            o.run("pkey", "-inform", "DER", "-in", "k.der", "-out", "k.pem")
        o.write("msg", bytes.fromhex(r["message"]))
        opts = ["hash-ml-dsa:" + r["hashAlg"]]
        opts += ["deterministic:1"] if r["deterministic"] == "true" else ["hextest-entropy:" + r["rnd"]]
        if r["context"]:
            opts.append("hexcontext-string:" + r["context"])
        o.sign("k.pem", "msg", "s", *opts)
        check(o.read("s") == bytes.fromhex(r["signature"]),
              "tgId %s tcId %s (%s %s): not NIST's signature" % (r["tgId"], r["tcId"], name, r["hashAlg"]))
    check(len({h for _, h in seen}) == 12 and len(seen) == 36, "cases for every hash and set: %d" % len(seen))


def hash_ml_dsa_never_silent(o, v):
    """A digest named anywhere but hash-ml-dsa never turns pure ML-DSA into
    HashML-DSA: it is refused."""
    o.run("genpkey", "-algorithm", "ML-DSA-44", "-out", "k.pem")
    o.write("msg", b"m")
    p = o.run("pkeyutl", "-sign", "-rawin", "-digest", "sha256", "-inkey", "k.pem", "-in", "msg", "-out", "s", ok=False)
    check(b"unsupported digest for ML-DSA" in p.stderr or b"-digest (prehash) is not supported" in p.stderr,
          "pkeyutl -digest: %r" % p.stderr[-300:])
    expect_stderr(o.run("dgst", "-sha256", "-sign", "k.pem", "-out", "s", "msg", ok=False), "unsupported digest for ML-DSA")
    p = o.sign("k.pem", "msg", "s", "hash-ml-dsa:SHA2-256", "message-encoding:0", ok=False)
    expect_stderr(p, "hash-ml-dsa cannot be combined with mu = 1 or message-encoding = 0")


CASES = {f.__name__: f for f in [
    dilithium_keys, dilithium_known_answers, dilithium_sign_rules, dilithium_x509, dilithium_tls,
    hash_ml_dsa_every_hash, hash_ml_dsa_known_answers, hash_ml_dsa_never_silent,
]}


def main():
    return cli_test.run_cases(CASES, __doc__.splitlines()[0], "mldsa-r3-", OpenSSL)


if __name__ == "__main__":
    sys.exit(main())
