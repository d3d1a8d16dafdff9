#!/usr/bin/env python3
"""make_corpus.py - writes the fuzz targets' seed corpora (tests/fuzz/corpus/)
from keys and signatures the openssl CLI makes with the built provider.

Usage: make_corpus.py --openssl BIN --provider-dir DIR [--out DIR]

decoder/  one selector byte (bit 0 PEM, bits 1-2 structure: any, SPKI,
          PrivateKeyInfo, EncryptedPrivateKeyInfo; bits 3-5 parameter set:
          any, 44, 65, 87, dilithium2, 3, 5), then a key file;
verify/   per parameter set (ML-DSA and round-3 Dilithium) the start-up triple
          of verify_fuzz.cc;
core/     per operation of core_fuzz.cc a key (and signature) that works.
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
    ap.add_argument("--provider-dir", required=True)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
    a = ap.parse_args()
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


if __name__ == "__main__":
    main()
