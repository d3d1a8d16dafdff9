#!/usr/bin/env python3
"""make_corpus.py - writes the fuzz targets' seed corpora (tests/fuzz/corpus/)
from keys and signatures the openssl CLI makes with the built provider.

Usage: make_corpus.py --openssl BIN --provider-dir DIR [--out DIR] [--targets LIST]

decoder/  one selector byte (bit 0 PEM, bits 1-2 structure: any, SPKI,
          PrivateKeyInfo, EncryptedPrivateKeyInfo; bits 3-5 parameter set:
          any, 44, 65, 87, dilithium2, 3, 5), then a key file;
verify/   per parameter set (ML-DSA and round-3 Dilithium) the start-up triple
          of verify_fuzz.cc;
core/     per operation of core_fuzz.cc a key (and signature) that works;
params/   params_fuzz.cc inputs that reach each operation with well-formed
          parameters (written here byte by byte, no openssl needed);
differential/  differential_fuzz.cc inputs: per ML-DSA parameter set each
          signing mode, import mode and DER layout (byte by byte, no openssl).
falcon/   falcon_fuzz.cc inputs: per Falcon variant a verify triple, the SPKI and
          PKCS#8 DER, a raw private key.

--targets params (a comma list) writes only those folders.
"""
import argparse
import os
import subprocess
import tempfile

SETS = ["ML-DSA-44", "ML-DSA-65", "ML-DSA-87"]
SEED = bytes(range(32))  # verify_fuzz.cc's key seed
SK_BYTES = {"ML-DSA-44": 2560, "ML-DSA-65": 4032, "ML-DSA-87": 4896}
# Round-3 Dilithium (parameter sets 3-5 of core_fuzz.cc and decoder_fuzz.cc):
# pk and sk bytes. PKCS#8 holds OCTET STRING(sk || pk).
ROUND3 = {"dilithium2": (1312, 2528), "dilithium3": (1952, 4000), "dilithium5": (2592, 4864)}
STRUCT = {"any": 0, "spki": 1, "pki": 2, "epki": 3}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openssl", default="openssl")
    ap.add_argument("--provider-dir")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
    ap.add_argument("--targets", default="decoder,verify,core,params,differential,falcon")
    a = ap.parse_args()
    targets = a.targets.split(",")
    if "params" in targets:
        write_params(a.out)
    if "differential" in targets:
        write_differential(a.out)
    if not set(targets) & {"decoder", "verify", "core", "falcon"}:
        return
    if not a.provider_dir:
        ap.error("--provider-dir is needed for the decoder, verify, core and falcon corpora")
    prov = ["-provider-path", os.path.abspath(a.provider_dir), "-provider", "mldsa-accel", "-provider", "default"]
    tmp = tempfile.mkdtemp(prefix="mldsa-corpus-")

    def ossl(*args, env=None, data=None):
        e = dict(os.environ)
        e.pop("OPENSSL_CONF", None)
        e.update(env or {})
        return subprocess.run([a.openssl, args[0]] + prov + list(args[1:]), env=e, input=data,
                              capture_output=True, check=True).stdout

    def put(folder, name, data):
        os.makedirs(os.path.join(a.out, folder), exist_ok=True)
        with open(os.path.join(a.out, folder, name), "wb") as f:
            f.write(data)

    if "falcon" in targets:
        write_falcon(ossl, put, tmp)
    if not set(targets) & {"decoder", "verify", "core"}:
        return
    for i, name in enumerate(SETS):
        key = os.path.join(tmp, name + ".pem")
        ossl("genpkey", "-algorithm", name, "-pkeyopt", "hexseed:" + SEED.hex(), "-out", key)
        # Decoder seeds: the set's own selector for the big ones, "any" for a few.
        sel = lambda pem, st, any_set=False: bytes([(1 if pem else 0) | STRUCT[st] << 1 | (0 if any_set else i + 1) << 3])
        put("decoder", name + "-pki.der", sel(False, "pki") + ossl("pkey", "-in", key, "-outform", "DER"))
        put("decoder", name + "-spki.der", sel(False, "spki") + ossl("pkey", "-in", key, "-pubout", "-outform", "DER"))
        put("decoder", name + "-spki-any.pem", sel(True, "any", True) + ossl("pkey", "-in", key, "-pubout"))
        if name == "ML-DSA-44":
            put("decoder", name + "-pki-any.pem", sel(True, "any", True) + ossl("pkey", "-in", key))
            put("decoder", name + "-epki.pem",
                sel(True, "epki") + ossl("pkey", "-in", key, "-aes-128-cbc", "-passout", "pass:fuzz"))
            put("decoder", name + "-v2.der", sel(False, "pki") + ossl(
                "pkey", "-in", key, "-outform", "DER",
                env={"MLDSA_ACCEL_PKCS8_PUBLIC_KEY": "yes", "MLDSA_ACCEL_OUTPUT_FORMATS": "priv-only"}))
            for fmt in ["seed-only", "oqskeypair", "bare-seed"]:
                put("decoder", "%s-%s.der" % (name, fmt), sel(False, "any", True) + ossl(
                    "pkey", "-in", key, "-outform", "DER", env={"MLDSA_ACCEL_OUTPUT_FORMATS": fmt}))

        # verify_fuzz.cc's start-up triple: context "ctx", message "verify-fuzz".
        msg_path = os.path.join(tmp, "msg")
        with open(msg_path, "wb") as f:
            f.write(b"verify-fuzz")
        sig = ossl("pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", msg_path,
                   "-pkeyopt", "deterministic:1", "-pkeyopt", "context-string:ctx")
        put("verify", name, bytes([i, 3]) + b"ctx" + bytes([11]) + b"verify-fuzz" + sig)

        # core_fuzz.cc: verify [pk length][pk][sig over "core", context "c"], and the sk / seed operations.
        with open(msg_path, "wb") as f:
            f.write(b"core")
        sig = ossl("pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", msg_path,
                   "-pkeyopt", "deterministic:1", "-pkeyopt", "context-string:c")
        spki = ossl("pkey", "-in", key, "-pubout", "-outform", "DER")
        pk = spki[-{"ML-DSA-44": 1312, "ML-DSA-65": 1952, "ML-DSA-87": 2592}[name]:]
        bare = ossl("pkey", "-in", key, "-outform", "DER", env={"MLDSA_ACCEL_OUTPUT_FORMATS": "bare-priv"})
        sk = bare[-SK_BYTES[name]:]
        put("core", name + "-verify", bytes([0 | i << 2]) + len(pk).to_bytes(2, "big") + pk + sig)
        put("core", name + "-from-sk", bytes([1 | i << 2]) + sk)
        put("core", name + "-sign-encoded", bytes([2 | i << 2]) + sk)
        put("core", name + "-from-seed", bytes([3 | i << 2]) + SEED)

    # Round 3: no context string.
    for j, (name, (pk_bytes, sk_bytes)) in enumerate(ROUND3.items()):
        i = 3 + j
        key = os.path.join(tmp, name + ".pem")
        ossl("genpkey", "-algorithm", name, "-pkeyopt", "hexseed:" + SEED.hex(), "-out", key)
        sel = bytes([(STRUCT["pki"] << 1) | (i + 1) << 3])
        pki = ossl("pkey", "-in", key, "-outform", "DER")
        put("decoder", name + "-pki.der", sel + pki)
        put("decoder", name + "-spki.der", bytes([(STRUCT["spki"] << 1) | (i + 1) << 3]) +
            ossl("pkey", "-in", key, "-pubout", "-outform", "DER"))
        msg_path = os.path.join(tmp, "msg")
        with open(msg_path, "wb") as f:
            f.write(b"verify-fuzz")
        sig = ossl("pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", msg_path, "-pkeyopt", "deterministic:1")
        put("verify", name, bytes([i, 0, 11]) + b"verify-fuzz" + sig)
        with open(msg_path, "wb") as f:
            f.write(b"core")
        sig = ossl("pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", msg_path, "-pkeyopt", "deterministic:1")
        pk = ossl("pkey", "-in", key, "-pubout", "-outform", "DER")[-pk_bytes:]
        sk = pki[-(sk_bytes + pk_bytes):-pk_bytes]
        put("core", name + "-verify", bytes([0 | i << 2]) + len(pk).to_bytes(2, "big") + pk + sig)
        put("core", name + "-from-sk", bytes([1 | i << 2]) + sk)
        put("core", name + "-sign-encoded", bytes([2 | i << 2]) + sk)
        put("core", name + "-from-seed", bytes([3 | i << 2]) + SEED)
    print("corpus written to", a.out)


# falcon_fuzz.cc's input: selector (bits 0-1 variant, bits 2-3 mode), then the mode's bytes.
FALCON = {"falcon512": (897, 1281), "falconpadded512": (897, 1281), "falcon1024": (1793, 2305),
          "falconpadded1024": (1793, 2305)}


def write_falcon(ossl, put, tmp):
    msg = b"falcon-fuzz"
    msg_path = os.path.join(tmp, "falcon-msg")
    with open(msg_path, "wb") as f:
        f.write(msg)
    for i, (name, (pk_bytes, sk_bytes)) in enumerate(FALCON.items()):
        key = os.path.join(tmp, name + ".pem")
        ossl("genpkey", "-algorithm", name, "-out", key)
        spki = ossl("pkey", "-in", key, "-pubout", "-outform", "DER")
        pki = ossl("pkey", "-in", key, "-outform", "DER")
        pk = spki[-pk_bytes:]
        sk = pki[-(sk_bytes + pk_bytes):-pk_bytes]
        sig = ossl("pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", msg_path)
        put("falcon", name + "-verify", bytes([i | 0 << 2]) + pk + bytes([len(msg)]) + msg + sig)
        put("falcon", name + "-spki.der", bytes([i | 1 << 2]) + spki)
        put("falcon", name + "-pki.der", bytes([i | 2 << 2]) + pki)
        put("falcon", name + "-import-priv", bytes([i | 3 << 2, 1]) + sk)


# params_fuzz.cc's input: see its header. Names and types by index.
P_NAMES = ["context-string", "deterministic", "test-entropy", "mu", "message-encoding", "signature",
           "hash-ml-dsa", "seed", "priv", "pub", "properties", "cipher", "algorithm-id"]
P_TYPES = ["int", "uint", "real", "utf8", "octets", "utf8_ptr", "octets_ptr"]
P_PARTS = ["seed", "priv", "pub", "sig", "entropy"]
P_SETS = ["ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "dilithium2", "dilithium3", "dilithium5"]


def p_value(name, typ, value, nul=False):
    """A parameter with the given bytes (form 1, or 2 with a NUL after them)."""
    n = len(value)
    length = bytes([n]) if n < 255 else bytes([255, n >> 8, n & 255])
    return bytes([P_NAMES.index(name), P_TYPES.index(typ), 2 if nul else 1]) + length + value


def p_int(name, v):
    return p_value(name, "int", v.to_bytes(4, "little", signed=True))


def p_part(name, typ, part):
    """A part of the set's fixed key, unchanged (form 3, XOR 0)."""
    return bytes([P_NAMES.index(name), P_TYPES.index(typ), 3, P_PARTS.index(part), 0, 0, 0])


def p_list(*params):
    return bytes([len(params)]) + b"".join(params)


def write_params(out):
    folder = os.path.join(out, "params")
    os.makedirs(folder, exist_ok=True)

    def put(name, data):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)

    def sign(set_index, entry, a, b=p_list(), late=p_list(), chunk=7, msg=b"message to sign"):
        tail = bytes([chunk]) + len(msg).to_bytes(2, "big") + msg + bytes([0, 3, 0, 9, 0, 1, 0x40, 0x02, 0x80])
        return bytes([0, set_index, entry]) + a + b + late + tail

    for i, s in enumerate(P_SETS):
        r3 = i >= 3
        ctx = p_list() if r3 else p_list(p_value("context-string", "octets", b"abc"))
        put(s + "-sign-deterministic", sign(i, 0, p_list(p_int("deterministic", 1)), ctx))
        put(s + "-sign-streamed-late", sign(i, 1, ctx, late=p_list(p_int("deterministic", 1)), chunk=4))
        put(s + "-sign-pkey-hedged", sign(i, 2, ctx))
        if not r3:
            put(s + "-sign-entropy", sign(i, 0, p_list(p_part("test-entropy", "octets", "entropy"),
                                                      p_value("context-string", "octets_ptr", b"ptr"))))
            put(s + "-sign-mu", sign(i, 1, p_list(p_int("mu", 1), p_int("deterministic", 1)), msg=bytes(range(64))))
            put(s + "-sign-raw", sign(i, 0, p_list(p_int("message-encoding", 0), p_int("deterministic", 1))))
            put(s + "-sign-hash", sign(i, 1, p_list(p_value("hash-ml-dsa", "utf8", b"SHA2-256", nul=True),
                                                    p_int("deterministic", 1)), ctx))
            put(s + "-sign-hash-digest", sign(i, 2, p_list(p_value("hash-ml-dsa", "utf8", b"SHA3-256", nul=True),
                                                           p_int("deterministic", 1)), msg=bytes(32)))
        put(s + "-keygen-seed", bytes([1, i]) + p_list(p_value("seed", "octets", bytes(range(32))),
                                                       p_value("properties", "utf8", b"", nul=True)))
        put(s + "-keygen-random", bytes([1, i]) + p_list())
        for sel, part in [(0, "seed"), (0, "priv"), (1, "pub")]:
            put("%s-import-%s" % (s, part), bytes([2, i, sel]) + p_list(p_part(part, "octets", part)))
        put(s + "-import-all", bytes([2, i, 0]) + p_list(p_part("seed", "octets", "seed"),
                                                        p_part("priv", "octets_ptr", "priv"),
                                                        p_part("pub", "octets", "pub")))

        def enc(pub_only, output, structure, selection, params=p_list(), pw=b"", dec=p_list()):
            return bytes([3, i, pub_only, output, structure, selection]) + params + bytes([len(pw)]) + pw + dec

        put(s + "-encode-pki-der", enc(0, 0, 1, 0))
        put(s + "-encode-spki-pem", enc(1, 1, 0, 1))
        put(s + "-encode-epki", enc(0, 1, 2, 0, p_list(p_value("cipher", "utf8", b"AES-128-CBC", nul=True)), b"pw"))
        put(s + "-encode-text", enc(0, 2, 3, 0, p_list(p_value("properties", "utf8", b"", nul=True))))


def write_differential(out):
    """differential_fuzz.cc's layout: set, seed, signing flags (bits 0-1
    randomness, 2 EVP_PKEY_sign, 3 context, 4 too long a context, 5-6
    message-encoding, 7 mu) and what they ask for, the mutations, then
    import mode and change, DER choice, changes and cut."""
    folder = os.path.join(out, "differential")
    os.makedirs(folder, exist_ok=True)
    flip = lambda pos, x: pos.to_bytes(2, "big") + bytes([x])
    signs = {  # name: flags byte and what follows it up to the message
        "det": (0x00, b""),
        "entropy-pkey-ctx": (0x01 | 0x04 | 0x08 | 0x20, bytes([3]) + b"ctx" + bytes(range(32))),
        "mu": (0x80, b""),
        "raw-ctx": (0x08 | 0x40, bytes([2]) + b"hi"),
        "bad-encoding": (0x60, bytes([2])),
        "short-entropy": (0x03, bytes([31]) + bytes(31)),
        "long-ctx": (0x08 | 0x10, bytes([0]) + bytes(256)),
        "max-ctx": (0x08 | 0x04, bytes([255]) + bytes(range(255))),
    }
    for i, s in enumerate(SETS):
        for j, (name, (flags, rest)) in enumerate(signs.items()):
            msg = bytes(range(64)) if flags & 0x80 else b"differential"
            body = bytes([i]) + bytes((i * 7 + k) % 256 for k in range(32))  # set, seed
            body += bytes([flags]) + rest + len(msg).to_bytes(2, "big") + msg
            body += bytes([1]) + flip(100 + j, 0x01)  # one signature byte changed
            body += bytes([j % 8])  # cut that many bytes
            body += flip(j, 0x80) + flip(0, 0x01) + bytes([j & 1]) + flip(j * 31, 0x04)  # message, context, pub
            body += bytes([j % 4]) + flip(j * 97, 0x01 if j % 3 else 0)  # import mode, change
            body += bytes([j % 7, 1]) + flip(j * 13, 0x01 if j % 2 else 0) + bytes([0x80 if j == 5 else 0])
            put_file(folder, f"{s}-{name}", body)


def put_file(folder, name, data):
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
