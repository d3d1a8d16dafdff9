#!/usr/bin/env python3
"""cli_test.py - drives the real `openssl` binary with the mldsa-accel provider.

Usage: cli_test.py --openssl BIN --provider-dir DIR --vectors DIR CASE...
       cli_test.py --list

Each CASE runs in a fresh temporary directory. Exit status: 0 all passed,
1 a check failed, 77 skipped (no openssl binary or provider module), with the
reason printed as "skipped: <reason>".
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77

# Sizes (FIPS 204 Table 2) and OIDs of the three parameter sets.
SETS = {
    "ML-DSA-44": {"pk": 1312, "sk": 2560, "sig": 2420, "oid_last": 0x11},
    "ML-DSA-65": {"pk": 1952, "sk": 4032, "sig": 3309, "oid_last": 0x12},
    "ML-DSA-87": {"pk": 2592, "sk": 4896, "sig": 4627, "oid_last": 0x13},
}
FORMATS = ["seed-priv", "priv-only", "oqskeypair", "seed-only", "bare-priv", "bare-seed"]

# Provider reason strings the negative cases expect on stderr.
R_BAD_ENCODING = "malformed ML-DSA key encoding"
R_SEED_PRIV_MISMATCH = "private key seed does not match the expanded key"
R_CONTEXT_TOO_LONG = "context string longer than 255 bytes"
R_FORMAT_NOT_ALLOWED = "not allowed by ml-dsa.input_formats"
R_PUB_PRIV_MISMATCH = "public key does not match the private key"
R_S1_OUT_OF_RANGE = "private key s1 coefficient out of range"


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


# --- DER, for building and taking apart key files -----------------------------

def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag, body):
    return bytes([tag]) + der_len(len(body)) + body


def mldsa_oid(name):
    return tlv(0x06, bytes([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, SETS[name]["oid_last"]]))


def pkcs8(name, payload):
    return tlv(0x30, tlv(0x02, b"\x00") + tlv(0x30, mldsa_oid(name)) + tlv(0x04, payload))


def pkcs8_v2(name, payload, pk, version=1, attributes=b""):
    """RFC 5958 OneAsymmetricKey: [0] attributes (raw SET content) and [1] publicKey."""
    body = tlv(0x02, bytes([version])) + tlv(0x30, mldsa_oid(name)) + tlv(0x04, payload)
    if attributes:
        body += tlv(0xA0, attributes)
    if pk is not None:
        body += tlv(0x81, b"\x00" + pk)
    return tlv(0x30, body)


def spki(name, pk):
    return tlv(0x30, tlv(0x30, mldsa_oid(name)) + tlv(0x03, b"\x00" + pk))


def layout(fmt, seed, sk, pk):
    return {
        "seed-priv": lambda: tlv(0x30, tlv(0x04, seed) + tlv(0x04, sk)),
        "priv-only": lambda: tlv(0x04, sk),
        "oqskeypair": lambda: tlv(0x04, sk + pk),
        "seed-only": lambda: tlv(0x80, seed),
        "bare-priv": lambda: sk,
        "bare-seed": lambda: seed,
    }[fmt]()


def der_children(der):
    """The (tag, value) pairs inside one SEQUENCE."""
    def header(buf, i):
        tag, n = buf[i], buf[i + 1]
        i += 2
        if n & 0x80:
            k = n & 0x7F
            n = int.from_bytes(buf[i:i + k], "big")
            i += k
        return tag, i, n
    tag, i, n = header(der, 0)
    check(tag == 0x30 and i + n == len(der), "not one DER SEQUENCE")
    out = []
    while i < len(der):
        tag, j, n = header(der, i)
        out.append((tag, der[j:j + n]))
        i = j + n
    return out


# --- ACVP keyGen vectors -------------------------------------------------------

def keygen_vectors(vector_dir):
    """First keyGen case per parameter set: {name: (seed, pk, sk)}."""
    out, rec = {}, {}
    path = os.path.join(vector_dir, "keyGen.txt")
    with open(path) as f:
        for line in list(f) + [""]:
            line = line.strip()
            if not line:
                name = rec.get("parameterSet")
                if name and name not in out and "seed" in rec:
                    out[name] = tuple(bytes.fromhex(rec[k]) for k in ("seed", "pk", "sk"))
                rec = {}
            elif not line.startswith("#") and " = " in line:
                k, v = line.split(" = ", 1)
                rec[k] = v
    check(set(out) == set(SETS), "keyGen.txt lacks a parameter set")
    return out


# --- running openssl -------------------------------------------------------------

class OpenSSL:
    def __init__(self, binary, provider_dir, workdir):
        self.binary = binary
        self.provider_dir = provider_dir
        self.dir = workdir

    def provider_args(self, default_first=False):
        order = ["default", "mldsa-accel"] if default_first else ["mldsa-accel", "default"]
        return ["-provider-path", self.provider_dir, "-provider", order[0], "-provider", order[1]]

    def conf(self, name, raw=(), **settings):
        """Writes an openssl.cnf loading the module with ml-dsa.* settings (and raw lines)."""
        path = os.path.join(self.dir, name)
        lines = ["openssl_conf = init", "[init]", "providers = provs", "[provs]",
                 "mldsa-accel = mldsa_sect", "default = default_sect",
                 "[default_sect]", "activate = 1", "[mldsa_sect]", "activate = 1",
                 "module = " + os.path.join(self.provider_dir, "mldsa-accel.so")]
        lines += ["ml-dsa.%s = %s" % (k, v) for k, v in settings.items()] + list(raw)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def run(self, cmd, *args, ok=True, conf=None, stdin=None, default_first=False, env_extra=None):
        """Runs `openssl cmd args`; with conf the providers come from that file."""
        argv = [self.binary, cmd] + ([] if conf else self.provider_args(default_first)) + list(args)
        env = dict(os.environ)
        env.pop("OPENSSL_CONF", None)
        env.update(env_extra or {})
        if conf:
            env["OPENSSL_CONF"] = conf
        p = subprocess.run(argv, cwd=self.dir, env=env, input=stdin, capture_output=True, timeout=120)
        shown = " ".join(argv[1:])
        print("$ openssl " + shown + (" (OPENSSL_CONF=%s)" % os.path.basename(conf) if conf else ""))
        check(p.returncode >= 0, "openssl %s died of signal %d" % (cmd, -p.returncode))
        if ok and p.returncode != 0:
            raise Failure("openssl %s failed (%d):\n%s" % (shown, p.returncode, p.stderr.decode(errors="replace")))
        if not ok and p.returncode == 0:
            raise Failure("openssl %s succeeded but should have failed" % shown)
        return p

    def path(self, name):
        return os.path.join(self.dir, name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)


def parse_text(out):
    """`pkey -text` output: (first line, {label: bytes}) for seed/priv/pub blocks."""
    lines = out.decode().splitlines()
    blocks, cur = {}, None
    for line in lines[1:]:
        m = re.fullmatch(r"(seed|priv|pub):", line)
        if m:
            cur = m.group(1)
            blocks[cur] = b""
        elif cur and line.startswith("    "):
            blocks[cur] += bytes.fromhex(line.strip().replace(":", ""))
        else:
            cur = None
    return (lines[0] if lines else ""), blocks


def key_text(o, keyfile, *extra):
    return parse_text(o.run("pkey", "-in", keyfile, "-noout", "-text", *extra).stdout)


def expect_stderr(p, text):
    err = p.stderr.decode(errors="replace")
    check(text in err, "expected %r on stderr, got:\n%s" % (text, err))


# --- cases ----------------------------------------------------------------------------

def genpkey_random_text(o, v):
    for name, s in SETS.items():
        o.run("genpkey", "-algorithm", name, "-out", "k.pem")
        check(o.read("k.pem").startswith(b"-----BEGIN PRIVATE KEY-----"), "PEM label")
        head, b = key_text(o, "k.pem")
        check(head == name + " Private-Key:", "text header: %r" % head)
        check(len(b.get("seed", b"")) == 32, "seed block")
        check(len(b.get("priv", b"")) == s["sk"], "priv block")
        check(len(b.get("pub", b"")) == s["pk"], "pub block")
        # Two random keys differ.
        o.run("genpkey", "-algorithm", name, "-out", "k2.pem")
        check(key_text(o, "k2.pem")[1]["seed"] != b["seed"], "two random keys share a seed")


def genpkey_hexseed_known_answer(o, v):
    for name in SETS:
        seed, pk, sk = v[name]
        o.run("genpkey", "-algorithm", name, "-pkeyopt", "hexseed:" + seed.hex(), "-out", "k.pem")
        o.run("pkey", "-in", "k.pem", "-pubout", "-outform", "DER", "-out", "pub.der")
        check(o.read("pub.der") == spki(name, pk), name + ": SubjectPublicKeyInfo is not the ACVP pk")
        _, b = key_text(o, "k.pem")
        check(b["seed"] == seed and b["priv"] == sk and b["pub"] == pk, name + ": text differs from ACVP")


def pubout_pem_and_der(o, v):
    name = "ML-DSA-65"
    o.run("genpkey", "-algorithm", name, "-out", "k.pem")
    o.run("pkey", "-in", "k.pem", "-pubout", "-out", "pub.pem")
    check(o.read("pub.pem").startswith(b"-----BEGIN PUBLIC KEY-----"), "PEM label")
    head, b = key_text(o, "pub.pem", "-pubin")
    check(head == name + " Public-Key:" and "priv" not in b, "public text: %r" % head)
    _, full = key_text(o, "k.pem")
    check(b["pub"] == full["pub"], "public key differs")
    # -text_pub on the private key prints only the public part.
    head, b2 = parse_text(o.run("pkey", "-in", "k.pem", "-noout", "-text_pub").stdout)
    check(head == name + " Public-Key:" and b2 == b, "-text_pub: %r" % head)
    o.run("pkey", "-in", "k.pem", "-pubout", "-outform", "DER", "-out", "a.der")
    o.run("pkey", "-pubin", "-in", "pub.pem", "-outform", "DER", "-out", "b.der")
    check(o.read("a.der") == o.read("b.der") == spki(name, full["pub"]), "DER public keys differ")
    o.run("pkey", "-pubin", "-inform", "DER", "-in", "b.der", "-noout")


def private_der_round_trip(o, v):
    for name in SETS:
        o.run("genpkey", "-algorithm", name, "-outform", "DER", "-out", "k.der")
        kids = der_children(o.read("k.der"))
        check(kids[1] == (0x30, mldsa_oid(name)), "AlgorithmIdentifier")
        _, pem_text = key_text(o, "k.der", "-inform", "DER")
        o.run("pkey", "-inform", "DER", "-in", "k.der", "-out", "k.pem")
        check(key_text(o, "k.pem")[1] == pem_text, "DER -> PEM changed the key")
        # Default layout: seed-priv.
        check(kids[2][1] == layout("seed-priv", pem_text["seed"], pem_text["priv"], b""), "not seed-priv")


def encrypted_pem_round_trip(o, v):
    o.run("genpkey", "-algorithm", "ML-DSA-44", "-out", "k.pem")
    _, plain = key_text(o, "k.pem")
    o.run("pkey", "-in", "k.pem", "-aes256", "-passout", "pass:x", "-out", "enc.pem")
    data = o.read("enc.pem")
    check(data.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----"), "encrypted PEM label")
    _, back = key_text(o, "enc.pem", "-passin", "pass:x")
    check(back == plain, "decrypted key differs")
    # The same with the default provider (which unwraps PEM and decrypts) loaded first.
    for f in ("enc.pem", "k.pem"):
        p = o.run("pkey", "-in", f, "-passin", "pass:x", "-noout", "-text", default_first=True)
        check(parse_text(p.stdout)[1] == plain, f + ": key differs with default loaded first")
    o.run("pkey", "-in", "enc.pem", "-passin", "pass:wrong", "-noout", ok=False)
    # `openssl pkcs8` decrypts it with PKCS8_decrypt: the same key comes out.
    o.run("pkcs8", "-in", "enc.pem", "-passin", "pass:x", "-out", "dec.pem")
    check(key_text(o, "dec.pem")[1] == plain, "pkcs8-decrypted key differs")
    # genpkey can write it encrypted directly, too.
    o.run("genpkey", "-algorithm", "ML-DSA-87", "-aes-128-cbc", "-pass", "pass:pw", "-out", "enc2.pem")
    check(o.read("enc2.pem").startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----"), "genpkey encrypted")
    head, _ = key_text(o, "enc2.pem", "-passin", "pass:pw")
    check(head == "ML-DSA-87 Private-Key:", head)


def pkeyutl_context_and_deterministic(o, v):
    name = "ML-DSA-65"
    o.run("genpkey", "-algorithm", name, "-out", "k.pem")
    o.run("pkey", "-in", "k.pem", "-pubout", "-out", "pub.pem")
    o.write("msg", b"the message to sign\n" * 100)
    det = ["-pkeyopt", "context-string:abc", "-pkeyopt", "deterministic:1"]
    o.run("pkeyutl", "-sign", "-rawin", "-inkey", "k.pem", "-in", "msg", "-out", "s1", *det)
    o.run("pkeyutl", "-sign", "-rawin", "-inkey", "k.pem", "-in", "msg", "-out", "s2", *det)
    check(len(o.read("s1")) == SETS[name]["sig"], "signature length")
    check(o.read("s1") == o.read("s2"), "deterministic signatures differ")
    # Hedged (default): two signatures differ, both verify.
    o.run("pkeyutl", "-sign", "-rawin", "-inkey", "k.pem", "-in", "msg", "-out", "h1", "-pkeyopt", "context-string:abc")
    o.run("pkeyutl", "-sign", "-rawin", "-inkey", "k.pem", "-in", "msg", "-out", "h2", "-pkeyopt", "context-string:abc")
    check(o.read("h1") != o.read("h2"), "hedged signatures are equal")
    for sig in ("s1", "h1", "h2"):
        # The same context given as text and as hex.
        for ctx in ("context-string:abc", "hexcontext-string:616263"):
            p = o.run("pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-in", "msg",
                      "-sigfile", sig, "-pkeyopt", ctx)
            check(b"Signature Verified Successfully" in p.stdout, "verify output")
    # Another context, no context, a changed message: all fail.
    o.run("pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-in", "msg", "-sigfile", "s1",
          "-pkeyopt", "context-string:abd", ok=False)
    o.run("pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-in", "msg", "-sigfile", "s1", ok=False)
    o.write("msg2", o.read("msg") + b"x")
    o.run("pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-in", "msg2", "-sigfile", "s1",
          "-pkeyopt", "context-string:abc", ok=False)


def pkeyutl_context_too_long(o, v):
    o.run("genpkey", "-algorithm", "ML-DSA-44", "-out", "k.pem")
    o.write("msg", b"m")
    p = o.run("pkeyutl", "-sign", "-rawin", "-inkey", "k.pem", "-in", "msg", "-out", "s",
              "-pkeyopt", "hexcontext-string:" + "00" * 256, ok=False)
    expect_stderr(p, R_CONTEXT_TOO_LONG)
    # 255 bytes is the limit and fine.
    o.run("pkeyutl", "-sign", "-rawin", "-inkey", "k.pem", "-in", "msg", "-out", "s",
          "-pkeyopt", "hexcontext-string:" + "00" * 255)


def make_ca(o, name, alg):
    o.run("req", "-x509", "-newkey", alg, "-keyout", name + ".key", "-nodes", "-subj", "/CN=mldsa-accel test " + name,
          "-days", "2", "-out", name + ".pem")


def req_x509_self_signed(o, v):
    make_ca(o, "ca", "ML-DSA-65")
    text = o.run("x509", "-in", "ca.pem", "-noout", "-text").stdout.decode()
    check(re.search(r"Signature Algorithm: (ML-DSA-65|id-ml-dsa-65)", text), "signature algorithm:\n" + text[:800])
    check(re.search(r"Public Key Algorithm: (ML-DSA-65|id-ml-dsa-65)", text), "public key algorithm")
    p = o.run("verify", "-CAfile", "ca.pem", "ca.pem")
    check(b"ca.pem: OK" in p.stdout, "verify output: %r" % p.stdout)


def x509_issue_leaf_and_verify(o, v):
    make_ca(o, "ca", "ML-DSA-87")
    make_ca(o, "other", "ML-DSA-87")
    o.run("req", "-new", "-newkey", "ML-DSA-44", "-nodes", "-keyout", "leaf.key", "-subj", "/CN=leaf", "-out", "leaf.csr")
    p = o.run("req", "-verify", "-in", "leaf.csr", "-noout")
    check(b"verify OK" in p.stdout + p.stderr, "CSR self-signature")
    o.run("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
          "-out", "leaf.pem")
    p = o.run("verify", "-CAfile", "ca.pem", "leaf.pem")
    check(b"leaf.pem: OK" in p.stdout, "verify output: %r" % p.stdout)
    # Signed by ca, not by other: verification against other fails.
    o.run("verify", "-CAfile", "other.pem", "leaf.pem", ok=False)
    # A flipped bit in the signature breaks it.
    der = bytearray(o.run("x509", "-in", "leaf.pem", "-outform", "DER").stdout)
    der[-10] ^= 1
    o.write("bad.der", bytes(der))
    o.run("x509", "-inform", "DER", "-in", "bad.der", "-out", "bad.pem")
    o.run("verify", "-CAfile", "ca.pem", "bad.pem", ok=False)


def dgst_sign_verify(o, v):
    # OpenSSL 3.0's dgst streams the file through EVP_DigestSignUpdate; the
    # provider absorbs it into mu, so ML-DSA works when no digest is named.
    o.run("genpkey", "-algorithm", "ML-DSA-65", "-out", "k.pem")
    o.run("pkey", "-in", "k.pem", "-pubout", "-out", "pub.pem")
    o.write("msg", os.urandom(100000))
    o.run("dgst", "-sign", "k.pem", "-out", "sig", "msg")
    check(len(o.read("sig")) == SETS["ML-DSA-65"]["sig"], "signature length")
    p = o.run("dgst", "-verify", "pub.pem", "-signature", "sig", "msg")
    check(b"Verified OK" in p.stdout, "dgst verify output")
    # The same signature verifies one-shot (dgst and pkeyutl -rawin agree).
    o.run("pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-in", "msg", "-sigfile", "sig")
    o.write("msg2", o.read("msg")[:-1])
    o.run("dgst", "-verify", "pub.pem", "-signature", "sig", "msg2", ok=False)
    # ML-DSA signs the message itself: an explicit digest is refused clearly.
    p = o.run("dgst", "-sha256", "-sign", "k.pem", "-out", "sig2", "msg", ok=False)
    expect_stderr(p, "unsupported digest for ML-DSA")


def pkcs8_output_formats(o, v):
    for fmt in FORMATS:
        conf = o.conf("out-%s.cnf" % fmt, output_formats=fmt)
        for name in SETS:
            seed, pk, sk = v[name]
            o.run("genpkey", "-algorithm", name, "-pkeyopt", "hexseed:" + seed.hex(), "-outform", "DER",
                  "-out", "k.der", conf=conf)
            der = o.read("k.der")
            check(der == pkcs8(name, layout(fmt, seed, sk, pk)), "%s %s: not the expected layout" % (name, fmt))
            # Loads back with default settings.
            _, b = key_text(o, "k.der", "-inform", "DER")
            check(b["priv"] == sk and b["pub"] == pk, "%s %s: loaded key differs" % (name, fmt))
            check(b.get("seed") == (seed if "seed" in fmt else None), "%s %s: seed" % (name, fmt))
    # A key without its seed falls back to the next format that fits.
    name = "ML-DSA-65"
    seed, pk, sk = v[name]
    o.write("nos.der", pkcs8(name, layout("priv-only", seed, sk, pk)))
    conf = o.conf("fallback.cnf", output_formats="seed-only, oqskeypair")
    o.run("pkey", "-inform", "DER", "-in", "nos.der", "-outform", "DER", "-out", "out.der", conf=conf)
    check(o.read("out.der") == pkcs8(name, layout("oqskeypair", seed, sk, pk)), "fallback to oqskeypair")


def pkcs8_input_formats(o, v):
    name = "ML-DSA-44"
    seed, pk, sk = v[name]
    o.write("seed.der", pkcs8(name, layout("seed-only", seed, sk, pk)))
    o.write("priv.der", pkcs8(name, layout("priv-only", seed, sk, pk)))
    conf = o.conf("in.cnf", input_formats="priv-only")
    o.run("pkey", "-inform", "DER", "-in", "priv.der", "-noout", conf=conf)
    o.run("pkey", "-inform", "DER", "-in", "seed.der", "-noout", conf=conf, ok=False)
    p = o.run("pkcs8", "-inform", "DER", "-in", "seed.der", "-nocrypt", "-out", "x.pem", conf=conf, ok=False)
    expect_stderr(p, R_FORMAT_NOT_ALLOWED)
    o.run("pkey", "-inform", "DER", "-in", "seed.der", "-noout")  # allowed by default
    o.run("pkcs8", "-inform", "DER", "-in", "seed.der", "-nocrypt", "-out", "x.pem")


def malformed_key_files(o, v):
    """Bad key files fail cleanly (exit 1, no crash) and say why.

    `openssl pkey` on 3.0 loads keys through OSSL_STORE, which tries each
    object type under an error mark and drops the decoders' errors: it can only
    say "Could not read key". `openssl pkcs8` (without -topk8) hands the
    PrivateKeyInfo to EVP_PKCS82PKEY, which keeps them: there the provider's
    reason appears on stderr."""
    name = "ML-DSA-65"
    seed, pk, sk = v[name]
    good = pkcs8(name, layout("seed-priv", seed, sk, pk))
    bad_seed = bytes([seed[0] ^ 1]) + seed[1:]
    bad_pk = pk[:10] + bytes([pk[10] ^ 1]) + pk[11:]
    bad_s1 = sk[:128] + b"\xff" + sk[129:]  # s1 coefficients 15, outside [-4, 4]
    cases = [  # file, bytes, reason on `pkcs8` stderr (None: not an ML-DSA key at all)
        ("truncated-file.der", good[: len(good) // 2], None),
        ("empty.der", b"", None),
        ("truncated-key.der", pkcs8(name, layout("priv-only", seed, sk, pk)[:-1]), R_BAD_ENCODING),
        ("long-key.der", pkcs8(name, layout("seed-only", seed, sk, pk) + b"\x00"), R_BAD_ENCODING),
        ("wrong-set.der", pkcs8("ML-DSA-44", layout("priv-only", seed, sk, pk)), R_BAD_ENCODING),
        ("seed-mismatch.der", pkcs8(name, layout("seed-priv", bad_seed, sk, pk)), R_SEED_PRIV_MISMATCH),
        ("pub-mismatch.der", pkcs8(name, layout("oqskeypair", seed, sk, bad_pk)), R_PUB_PRIV_MISMATCH),
        ("s1-range.der", pkcs8(name, layout("bare-priv", seed, bad_s1, pk)), R_S1_OUT_OF_RANGE),
    ]
    for fname, data, reason in cases:
        o.write(fname, data)
        p = o.run("pkey", "-inform", "DER", "-in", fname, "-noout", ok=False)
        check(p.returncode == 1, "%s: exit status %d" % (fname, p.returncode))
        expect_stderr(p, "Could not read")
        p = o.run("pkcs8", "-inform", "DER", "-in", fname, "-nocrypt", "-out", "out.pem", ok=False)
        check(p.returncode == 1, "%s: pkcs8 exit status %d" % (fname, p.returncode))
        if reason:
            expect_stderr(p, reason)
    # A public key of the wrong length.
    o.write("short-pub.der", spki(name, pk[:-1]))
    o.run("pkey", "-pubin", "-inform", "DER", "-in", "short-pub.der", "-noout", ok=False)
    # The intact key loads both ways (the files above are bad only where broken).
    o.write("good.der", good)
    o.run("pkey", "-inform", "DER", "-in", "good.der", "-noout")
    o.run("pkcs8", "-inform", "DER", "-in", "good.der", "-nocrypt", "-out", "good.pem")
    # A truncated PEM file.
    o.write("trunc.pem", o.read("good.pem")[:-200])
    o.run("pkey", "-in", "trunc.pem", "-noout", ok=False)


def pkcs8_v2_public_key(o, v):
    """PKCS#8 v2 (OneAsymmetricKey with publicKey [1], as BouncyCastle writes
    seedless keys) loads on this OpenSSL, its public key checked; written with
    pkcs8_public_key = yes, and v1 by default."""
    name = "ML-DSA-44"
    seed, pk, sk = v[name]
    bad_pk = pk[:5] + bytes([pk[5] ^ 1]) + pk[6:]
    # A CMS-style attribute: SEQUENCE { OID 1.2.840.113549.1.9.20 (friendlyName), SET { BMPString "k" } }
    attr = tlv(0x30, tlv(0x06, bytes.fromhex("2a864886f70d010914")) + tlv(0x31, tlv(0x1E, b"\x00k")))
    good = [
        ("v2-priv.der", pkcs8_v2(name, layout("priv-only", seed, sk, pk), pk)),
        ("v2-seed.der", pkcs8_v2(name, layout("seed-only", seed, sk, pk), pk)),
        ("v2-attrs.der", pkcs8_v2(name, layout("seed-priv", seed, sk, pk), pk, attributes=attr)),
        ("v2-nopub.der", pkcs8_v2(name, layout("priv-only", seed, sk, pk), None)),
        ("v2-oqs.der", pkcs8_v2(name, layout("oqskeypair", seed, sk, pk), pk)),
    ]
    o.write("pub.der", spki(name, pk))
    for fname, data in good:
        o.write(fname, data)
        out = o.run("pkey", "-inform", "DER", "-in", fname, "-pubout", "-outform", "DER").stdout
        check(out == spki(name, pk), "%s: wrong public key" % fname)
    bad = [
        ("v2-wrong-pub.der", pkcs8_v2(name, layout("priv-only", seed, sk, pk), bad_pk)),
        ("v2-oqs-differs.der", pkcs8_v2(name, layout("oqskeypair", seed, sk, pk), bad_pk)),
        ("v2-short-pub.der", pkcs8_v2(name, layout("seed-only", seed, sk, pk), pk[:-1])),
        ("v1-with-pub.der", pkcs8_v2(name, layout("priv-only", seed, sk, pk), pk, version=0)),
        ("v3.der", pkcs8_v2(name, layout("priv-only", seed, sk, pk), pk, version=2)),
    ]
    # `pkey` loads through OSSL_STORE, which drops the decoders' reasons, and
    # 3.0's `pkcs8` parses with libcrypto's PKCS8_PRIV_KEY_INFO, which knows
    # no v2: the reasons are checked through OSSL_DECODER (cli_codec_evp_test).
    for fname, data in bad:
        o.write(fname, data)
        p = o.run("pkey", "-inform", "DER", "-in", fname, "-noout", ok=False)
        check(p.returncode == 1, "%s: exit status %d" % (fname, p.returncode))
    # Written: v1 by default, v2 with the public key when asked for.
    o.write("k.der", pkcs8(name, layout("seed-priv", seed, sk, pk)))
    d = der_children(o.run("pkey", "-inform", "DER", "-in", "k.der", "-outform", "DER").stdout)
    check(d[0] == (0x02, b"\x00") and len(d) == 3, "default output is not v1")
    conf = o.conf("v2.cnf", raw=["pkcs8_public_key = yes"])
    d = der_children(o.run("pkey", "-inform", "DER", "-in", "k.der", "-outform", "DER", conf=conf).stdout)
    check(d[0] == (0x02, b"\x01") and d[3] == (0x81, b"\x00" + pk), "pkcs8_public_key = yes: not v2 with [1]")
    # ... and read back.
    o.run("pkey", "-inform", "DER", "-in", "k.der", "-outform", "DER", "-out", "k2.der", conf=conf)
    check(o.run("pkey", "-inform", "DER", "-in", "k2.der", "-pubout", "-outform", "DER").stdout == spki(name, pk),
          "v2 output does not read back")


def refused_load_is_loud(o, v):
    """A refused load says why: by name with -provider, on stderr from a config."""
    p = o.run("list", "-providers", ok=False, env_extra={"MLDSA_ACCEL_GPU_MAX_BATCH": "0"})
    expect_stderr(p, "mldsa-accel:OSSL_provider_init:bad mldsa-accel setting:")
    expect_stderr(p, "gpu_max_batch: '0' is not a whole number")
    # OpenSSL drops a provider its config fails to activate without a word
    # (exit 0): the provider says it on stderr itself.
    conf = o.conf("bad.cnf", raw=["gpu_max_batch = lots"])
    p = o.run("list", "-providers", conf=conf)
    check(b"mldsa-accel" not in p.stdout, "the provider is listed although it refused")
    expect_stderr(p, "mldsa-accel: bad mldsa-accel setting: gpu_max_batch: 'lots'")
    expect_stderr(p, "(provider not loaded)")
    # Every setting is checked by its type, and a key the module does not know
    # is refused too (provctx/settings.h, docs/CONFIGURE.md).
    for line, said in [("ml-dsa.retain_seed = maybe", "ml-dsa.retain_seed: 'maybe' is not a boolean"),
                       ("gpu_polcy = always", "unknown key 'gpu_polcy'"),
                       ("gpu_kernels = fast", "gpu_kernels: 'fast' is not thread, coop"),
                       ("ml-dsa.output_formats = nonsense", "names a format that does not exist")]:
        p = o.run("list", "-providers", conf=o.conf("bad.cnf", raw=[line]))
        check(b"mldsa-accel" not in p.stdout, "%s: the provider is listed although it refused" % line)
        expect_stderr(p, said)
    # A good config says nothing.
    p = o.run("list", "-providers", conf=o.conf("good.cnf"))
    check(b"mldsa-accel" in p.stdout and p.stderr == b"", "good config: %r" % p.stderr)


def hash_ml_dsa_keys(o, v):
    """ML-DSA keys written under the HashML-DSA OIDs (2.16.840.1.101.3.4.3.32-34) as the key
    algorithm, as several implementations write them, built here byte by byte: SPKI and PKCS#8
    load as keys bound to HashML-DSA with SHA-512; their signatures are HashML-DSA's (not pure
    ML-DSA's, either way); a pure request is refused; a certificate with such a key and a
    HashML-DSA signature verifies; ml-dsa.hash_ml_dsa_key_oid = yes writes the OID back."""
    for name, last in (("ML-DSA-44", 0x20), ("ML-DSA-65", 0x21), ("ML-DSA-87", 0x22)):
        seed, pk, _sk = v[name]
        hoid = tlv(0x06, bytes([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, last]))
        o.write("h.p8.der", tlv(0x30, tlv(0x02, b"\x00") + tlv(0x30, hoid) + tlv(0x04, tlv(0x80, seed))))
        o.write("h.spki.der", tlv(0x30, tlv(0x30, hoid) + tlv(0x03, b"\x00" + pk)))
        o.write("p.spki.der", spki(name, pk))
        o.run("pkey", "-inform", "DER", "-in", "h.p8.der", "-noout")
        _, blocks = key_text(o, "h.spki.der", "-pubin", "-inform", "DER")
        check(blocks.get("pub") == pk, name + ": the HashML-DSA-OID public key reads back wrong")
        o.write("m.txt", b"hash-bound message\n")
        o.run("pkeyutl", "-sign", "-inkey", "h.p8.der", "-keyform", "DER", "-rawin", "-in", "m.txt", "-out", "h.sig")
        o.run("pkeyutl", "-sign", "-inkey", "h.p8.der", "-keyform", "DER", "-rawin", "-in", "m.txt", "-out", "x.sig",
              "-pkeyopt", "hash-ml-dsa:SHA2-512")
        for sig, key, good in (("h.sig", "h.spki.der", True), ("x.sig", "h.spki.der", True),
                               ("h.sig", "p.spki.der", False)):
            p = o.run("pkeyutl", "-verify", "-pubin", "-keyform", "DER", "-inkey", key, "-rawin", "-in", "m.txt",
                      "-sigfile", sig, ok=good)
            check((b"Signature Verified Successfully" in p.stdout) == good, "%s %s under %s" % (name, sig, key))
        # A pure ML-DSA signature of the same message is no HashML-DSA signature.
        o.write("p.p8.der", pkcs8(name, layout("seed-only", seed, b"", pk)))
        o.run("pkeyutl", "-sign", "-inkey", "p.p8.der", "-keyform", "DER", "-rawin", "-in", "m.txt", "-out", "p.sig")
        o.run("pkeyutl", "-verify", "-pubin", "-keyform", "DER", "-inkey", "h.spki.der", "-rawin", "-in", "m.txt",
              "-sigfile", "p.sig", ok=False)
        # Pure ML-DSA asked for with the bound key: refused, named.
        p = o.run("pkeyutl", "-sign", "-inkey", "h.p8.der", "-keyform", "DER", "-rawin", "-in", "m.txt",
                  "-out", "y.sig", "-pkeyopt", "message-encoding:0", ok=False)
        expect_stderr(p, "key is bound to HashML-DSA: pure ML-DSA refused")
        p = o.run("pkeyutl", "-sign", "-inkey", "h.p8.der", "-keyform", "DER", "-rawin", "-in", "m.txt",
                  "-out", "y.sig", "-pkeyopt", "hash-ml-dsa:SHA2-256", ok=False)
        expect_stderr(p, "unsupported digest")
        # Certificates: with ml-dsa.hash_ml_dsa_key_oid = yes the key is written under its
        # HashML-DSA OID and the certificate (HashML-DSA signature) verifies. By default the key is
        # written under its ML-DSA OID (RFC 9881); the signature stays HashML-DSA's, which 3.0's
        # X.509 code would check as pure ML-DSA under such a key: only the OIDs are checked then.
        for setting, count in (("no", 2), ("yes", 3)):
            conf = o.conf("h-%s.cnf" % setting, hash_ml_dsa_key_oid=setting)
            o.run("req", "-x509", "-new", "-key", "h.p8.der", "-keyform", "DER", "-subj", "/CN=hash-ml-dsa",
                  "-days", "2", "-outform", "DER", "-out", "c.der", conf=conf)
            der = o.read("c.der")
            check(der.count(hoid) == count, "%s, hash_ml_dsa_key_oid = %s: %d HashML-DSA OIDs in the certificate"
                  % (name, setting, der.count(hoid)))
            if setting == "yes":
                o.run("x509", "-inform", "DER", "-in", "c.der", "-out", "c.pem")
                o.run("verify", "-check_ss_sig", "-CAfile", "c.pem", "c.pem")
        o.run("pkey", "-inform", "DER", "-in", "h.p8.der", "-pubout", "-outform", "DER", "-out", "back.der",
              conf=o.conf("h-yes.cnf", hash_ml_dsa_key_oid="yes"))
        check(o.read("back.der") == o.read("h.spki.der"), name + ": SPKI not written back under its HashML-DSA OID")


CASES = {f.__name__: f for f in [
    genpkey_random_text, genpkey_hexseed_known_answer, pubout_pem_and_der, private_der_round_trip,
    encrypted_pem_round_trip, pkeyutl_context_and_deterministic, pkeyutl_context_too_long, req_x509_self_signed,
    x509_issue_leaf_and_verify, dgst_sign_verify, pkcs8_output_formats, pkcs8_input_formats, malformed_key_files,
    refused_load_is_loud, pkcs8_v2_public_key, hash_ml_dsa_keys,
]}


# --- the command line of the tests in this folder -------------------------------

def case_args(cases, description, openssl_default=None, openssl_env=True, vectors=True):
    """Parses [--openssl BIN] [--openssl-env VAR] --provider-dir DIR [--vectors DIR] [--list] CASE...
    Returns (args, None) to run the cases, or (None, exit status) when done: --list printed
    the cases (0), or the cases are unknown or none (2)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--openssl", default=openssl_default)
    if openssl_env:
        ap.add_argument("--openssl-env")
    ap.add_argument("--provider-dir")
    if vectors:
        ap.add_argument("--vectors")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    if args.list:
        print("\n".join(cases))
        return None, 0
    unknown = [c for c in args.cases if c not in cases]
    if unknown or not args.cases:
        print("unknown or no cases: %s" % unknown, file=sys.stderr)
        return None, 2
    return args, None


def run_cases(cases, description, tmp_prefix, openssl_class=None, vectors=True):
    """main() of a test that runs on the system OpenSSL (--openssl BIN) and on another one
    (--openssl-env VAR: skipped when VAR is unset). Each case runs in a fresh temporary
    directory, as cases[name](OpenSSL, vectors). Exit status 0 passed, 1 failed, 2 usage,
    77 skipped (all of the cases)."""
    args, code = case_args(cases, description, vectors=vectors)
    if args is None:
        return code
    binary = args.openssl
    if args.openssl_env:
        binary = os.environ.get(args.openssl_env)
        if not binary:
            print("skipped: %s not set" % args.openssl_env)
            return SKIP
    if not binary or not os.path.exists(binary):
        print("skipped: no openssl binary (%s)" % binary)
        return SKIP
    if not os.path.exists(os.path.join(args.provider_dir or "", "mldsa-accel.so")):
        print("skipped: no provider module in %s" % args.provider_dir)
        return SKIP
    status, skipped = 0, 0
    for name in args.cases:
        with tempfile.TemporaryDirectory(prefix=tmp_prefix) as tmp:
            try:
                cases[name]((openssl_class or OpenSSL)(binary, os.path.abspath(args.provider_dir), tmp),
                            args.vectors if vectors else None)
                print("PASS %s" % name)
            except Skip as e:
                print("skipped: %s" % e)
                skipped += 1
            except Failure as e:
                print("FAIL %s: %s" % (name, e))
                status = 1
    return status if status or skipped < len(args.cases) else SKIP


def main():
    args, code = case_args(CASES, __doc__.splitlines()[0], openssl_default="openssl", openssl_env=False)
    if args is None:
        return code
    try:
        if not args.openssl or not os.path.exists(args.openssl):
            raise Skip("no openssl binary (%s)" % args.openssl)
        if not os.path.exists(os.path.join(args.provider_dir or "", "mldsa-accel.so")):
            raise Skip("no provider module in %s" % args.provider_dir)
        vectors = keygen_vectors(args.vectors)
    except Skip as e:
        print("skipped: %s" % e)
        return SKIP
    status = 0
    for name in args.cases:
        with tempfile.TemporaryDirectory(prefix="mldsa-cli-") as tmp:
            try:
                CASES[name](OpenSSL(args.openssl, os.path.abspath(args.provider_dir), tmp), vectors)
                print("PASS %s" % name)
            except Failure as e:
                print("FAIL %s: %s" % (name, e))
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
