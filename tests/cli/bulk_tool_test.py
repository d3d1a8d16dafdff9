#!/usr/bin/env python3
"""bulk_tool_test.py - the mldsa-accel bulk tool: keygen, sign and verify over a
manifest, --json, exit codes, failures listed, --help, keys as raw bytes and
as PEM (through the provider), and on the simulated device with corrupt
outputs: every signature it writes verifies on the CPU.

usage: bulk_tool_test.py --tool T --test-lib DIR --provider-dir DIR --openssl O CASE
"""
import argparse, json, os, subprocess, sys, tempfile

def run(args, tool, env=None, expect=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([tool] + args, capture_output=True, text=True, env=e, timeout=300)
    if expect is not None and p.returncode != expect:
        sys.exit(f"FAIL: {args}: exit {p.returncode}, expected {expect}\nstdout: {p.stdout}\nstderr: {p.stderr}")
    return p

def setup(d, n):
    files = []
    for i in range(n):
        path = os.path.join(d, f"doc{i}.txt")
        with open(path, "w") as f:
            f.write(f"document {i}\n" * (i % 7 + 1))
        files.append(path)
    manifest = os.path.join(d, "manifest")
    with open(manifest, "w") as f:
        f.write("\n".join(files) + "\n")
    return files, manifest

def case_roundtrip(a, d):
    files, manifest = setup(d, 40)
    keys, sigs = os.path.join(d, "keys"), os.path.join(d, "sigs")
    os.mkdir(keys); os.mkdir(sigs)
    cpu = {"MLDSA_ACCEL_GPU": "off"}
    j = json.loads(run(["keygen", "--alg", "ML-DSA-65", "--count", "2", "--out", keys, "--json"], a.tool, cpu, 0).stdout)
    assert j["items"] == 2 and j["failed"] == 0, j
    key, pub = os.path.join(keys, "key-0.seed"), os.path.join(keys, "key-0.pub")
    run(["sign", "--key", key, "--alg", "ML-DSA-65", "--in", manifest, "--out", sigs], a.tool, cpu, 0)
    j = json.loads(run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs, "--json"], a.tool, cpu, 0).stdout)
    assert j["items"] == 40 and j["failed"] == 0 and j["seconds"] >= 0, j
    # The other key's public key: every one fails, each listed.
    p = run(["verify", "--pub", os.path.join(keys, "key-1.pub"), "--in", manifest, "--sigs", sigs], a.tool, cpu, 1)
    assert len(p.stdout.splitlines()) == 40, p.stdout
    # One document changed, one signature missing: two lines, exit 1.
    with open(files[3], "a") as f:
        f.write("tampered\n")
    os.remove(os.path.join(sigs, "doc5.txt.sig"))
    p = run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs], a.tool, cpu, 1)
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and "doc3.txt: signature does not verify" in lines[0] and "doc5.txt" in lines[1], lines
    # A wrong context string fails every item.
    run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs, "--context", "x"], a.tool, cpu, 1)

def case_usage(a, d):
    assert "usage: mldsa-accel" in run(["--help"], a.tool, None, 0).stdout
    run(["frobnicate"], a.tool, None, 2)
    run(["sign", "--in", "x"], a.tool, None, 2)
    run(["keygen", "--alg", "ML-DSA-65", "--count", "zero", "--out", d], a.tool, None, 2)
    _, manifest = setup(d, 2)
    bad = os.path.join(d, "bad.key")
    with open(bad, "wb") as f:
        f.write(b"not a key")
    p = run(["sign", "--key", bad, "--in", manifest, "--out", d], a.tool, None, 2)
    assert "not a private key" in p.stderr, p.stderr
    run(["sign", "--key", bad, "--in", os.path.join(d, "missing"), "--out", d], a.tool, None, 2)

def case_pem_keys(a, d):
    if not os.path.exists(a.openssl):
        print(f"skipped: no openssl at {a.openssl}"); sys.exit(77)
    prov = ["-provider-path", a.provider_dir, "-provider", "mldsa-accel", "-provider", "default"]
    key, pub = os.path.join(d, "k.pem"), os.path.join(d, "p.pem")
    subprocess.run([a.openssl, "genpkey"] + prov + ["-algorithm", "ML-DSA-44", "-out", key], check=True)
    subprocess.run([a.openssl, "pkey"] + prov + ["-in", key, "-pubout", "-out", pub], check=True)
    _, manifest = setup(d, 10)
    sigs = os.path.join(d, "sigs"); os.mkdir(sigs)
    env = {"OPENSSL_MODULES": a.provider_dir, "MLDSA_ACCEL_GPU": "off"}
    run(["sign", "--key", key, "--in", manifest, "--out", sigs], a.tool, env, 0)
    run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs], a.tool, env, 0)
    # And openssl itself agrees with one of them (pure ML-DSA, empty context).
    subprocess.run([a.openssl, "pkeyutl"] + prov + ["-verify", "-pubin", "-inkey", pub, "-rawin", "-in",
                    os.path.join(d, "doc0.txt"), "-sigfile", os.path.join(sigs, "doc0.txt.sig")], check=True,
                   capture_output=True)

def case_sim_corrupt(a, d):
    """The GPU path on a simulated device whose outputs are corrupted: nothing wrong leaves."""
    _, manifest = setup(d, 300)
    keys, sigs = os.path.join(d, "keys"), os.path.join(d, "sigs")
    os.mkdir(keys); os.mkdir(sigs)
    cpu = {"MLDSA_ACCEL_GPU": "off"}
    run(["keygen", "--alg", "ML-DSA-44", "--count", "1", "--out", keys], a.tool, cpu, 0)
    sim = {"LD_LIBRARY_PATH": a.test_lib, "MLDSA_ACCEL_GPU": "on", "MLDSA_ACCEL_SIM_DEVICES": "1",
           "MLDSA_ACCEL_GPU_MAX_BATCH": "32", "MLDSA_ACCEL_GPU_VERIFY_AUDIT": "1",
           "MLDSA_ACCEL_GPU_FAULT_LIMIT": "1000000",
           "MLDSA_ACCEL_SIM_FAULTS": "launch_sign_loop:every2:corrupt,copy_to_host:every9:corrupt,launch_verify:every3:corrupt"}
    key, pub = os.path.join(keys, "key-0.seed"), os.path.join(keys, "key-0.pub")
    # The CPU cores and the device take items from one list: on a busy
    # machine the cores may take them all, so a run is repeated (at most 5
    # times) until the device took part; every run's results are checked.
    for _ in range(5):
        j = json.loads(run(["sign", "--key", key, "--alg", "ML-DSA-44", "--in", manifest, "--out", sigs, "--json"],
                           a.tool, sim, 0).stdout)
        run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs], a.tool, cpu, 0)  # each verifies on the CPU
        if j["device_wrong"] > 0:
            break
    assert j["device_items"] > 0 and j["device_wrong"] > 0, j
    for _ in range(5):
        j = json.loads(run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs, "--json"], a.tool, sim, 0).stdout)
        assert j["failed"] == 0, j
        if j["device_items"] > 0:
            break
    assert j["device_items"] > 0, j

def main():
    ap = argparse.ArgumentParser()
    for o in ("--tool", "--test-lib", "--provider-dir", "--openssl"):
        ap.add_argument(o, required=True)
    ap.add_argument("case")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        globals()["case_" + a.case](a, d)
    print("ok")

if __name__ == "__main__":
    main()
