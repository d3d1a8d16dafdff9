#!/usr/bin/env python3
"""bulk_tool_test.py - the mldsa-accel bulk tool: keygen, sign and verify over a
manifest, --json, exit codes, failures listed, --help, keys as raw bytes and
as PEM (through the provider), and on the simulated device with corrupt
outputs: every signature it writes verifies on the CPU. Then each feature of
issue 33's second part: JSON Lines on stdin/stdout (jsonl), a directory as
input (directory), files of any size, read and write errors and key files' modes
(files), the progress line on a terminal only (progress), item
latencies and what the CPU and the device did in the summary (summary), and
Ctrl-C: what finished is written, exit 130, --resume finishes (interrupt).

usage: bulk_tool_test.py --tool T --test-lib DIR --provider-dir DIR --openssl O CASE
"""
import argparse, base64, json, os, pty, select, signal, subprocess, sys, tempfile, time

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
    # Output folders that do not exist yet are made (keys/ two levels deep).
    keys, sigs = os.path.join(d, "out", "keys"), os.path.join(d, "sigs")
    cpu = {"MLDSA_ACCEL_GPU": "off"}
    j = json.loads(run(["keygen", "--alg", "ML-DSA-65", "--count", "2", "--out", keys, "--json"], a.tool, cpu, 0).stdout)
    assert j["items"] == 2 and j["failed"] == 0 and j["cpu_items"] == 2, j
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
    # An output folder that cannot be made: a named error, exit 2.
    with open(os.path.join(d, "plain"), "w") as f:
        f.write("x")
    p = run(["keygen", "--alg", "ML-DSA-44", "--count", "1", "--out", os.path.join(d, "plain", "keys")], a.tool, None, 2)
    assert "cannot make the output folder" in p.stderr, p.stderr
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

def make_key(a, d, alg="ML-DSA-44"):
    keys = os.path.join(d, "keys")
    os.makedirs(keys, exist_ok=True)
    run(["keygen", "--alg", alg, "--count", "1", "--out", keys], a.tool, {"MLDSA_ACCEL_GPU": "off"}, 0)
    return os.path.join(keys, "key-0.seed"), os.path.join(keys, "key-0.pub")

def stream(a, args, records, env, expect):
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)
    e = dict(os.environ); e.update(env)
    p = subprocess.run([a.tool] + args + ["--in", "-"], input=text, capture_output=True, text=True, env=e, timeout=300)
    if p.returncode != expect:
        sys.exit(f"FAIL: {args}: exit {p.returncode}, expected {expect}\nstdout: {p.stdout}\nstderr: {p.stderr}")
    return [json.loads(line) for line in p.stdout.splitlines()], p

def case_jsonl(a, d):
    """Records in, one result line each, in order; signatures equal the file mode's (deterministic)."""
    key, pub = make_key(a, d)
    cpu = {"MLDSA_ACCEL_GPU": "off"}
    b64 = lambda b: base64.b64encode(b).decode()
    msgs = [f"stream message {i}".encode() * (i % 5 + 1) for i in range(30)]
    records = [{"id": i, "msg": b64(m)} for i, m in enumerate(msgs)]
    records[7]["ctx"] = b64(b"a context")
    records[9]["id"] = "nine \"quoted\""
    records += ["not json", "", "  ", {"id": "no-msg"}, {"id": "bad-b64", "msg": "***"}]
    out, _ = stream(a, ["sign", "--key", key, "--alg", "ML-DSA-44", "--deterministic"], records, cpu, 1)
    assert len(out) == len(records) - 2, out  # the blank lines get no result
    assert [o["id"] for o in out[:30]] == [r["id"] for r in records[:30]], out
    assert out[30]["id"] is None and "error" in out[30] and out[31]["id"] == "no-msg" and "error" in out[31], out
    assert out[32]["id"] == "bad-b64" and "error" in out[32], out
    sigs = [base64.b64decode(o["sig"]) for o in out[:30]]
    assert all(len(s) == 2420 for s in sigs), [len(s) for s in sigs]
    # The same messages signed from files: the same signatures.
    files = []
    for i, m in enumerate(msgs):
        f = os.path.join(d, f"m{i}"); open(f, "wb").write(m); files.append(f)
    manifest = os.path.join(d, "manifest"); open(manifest, "w").write("\n".join(files[:7]) + "\n")
    sigdir = os.path.join(d, "sigs"); os.mkdir(sigdir)
    run(["sign", "--key", key, "--alg", "ML-DSA-44", "--deterministic", "--in", manifest, "--out", sigdir], a.tool, cpu, 0)
    for i in range(7):
        assert open(os.path.join(sigdir, f"m{i}.sig"), "rb").read() == sigs[i], i
    # Verify them back: one tampered, one with the wrong context, one without its context.
    vrec = [{"id": i, "msg": b64(m), "sig": b64(sigs[i])} for i, m in enumerate(msgs)]
    vrec[7]["ctx"] = b64(b"a context")
    vrec[3]["sig"] = b64(sigs[3][:100] + bytes([sigs[3][100] ^ 1]) + sigs[3][101:])
    vrec[5]["ctx"] = b64(b"other")
    out, p = stream(a, ["verify", "--pub", pub, "--json"], vrec, cpu, 1)
    assert [o["ok"] for o in out] == [i not in (3, 5) for i in range(30)], out
    assert out[3]["error"] == "signature does not verify", out[3]
    summary = json.loads(p.stderr.strip().splitlines()[-1])
    assert summary["items"] == 30 and summary["failed"] == 2, summary
    out, _ = stream(a, ["verify", "--pub", pub], [r for i, r in enumerate(vrec) if i not in (3, 5)], cpu, 0)
    assert all(o["ok"] for o in out) and len(out) == 28, out

def case_directory(a, d):
    """--in DIR: every regular file in it (not sub-folders), sorted."""
    key, pub = make_key(a, d)
    cpu = {"MLDSA_ACCEL_GPU": "off"}
    docs, sigs = os.path.join(d, "docs"), os.path.join(d, "sigs")
    os.mkdir(docs); os.mkdir(sigs); os.mkdir(os.path.join(docs, "sub"))
    for i in range(12):
        open(os.path.join(docs, f"f{i:02d}.bin"), "wb").write(bytes([i]) * (i * 10))
    open(os.path.join(docs, "sub", "inner"), "w").write("not taken")
    j = json.loads(run(["sign", "--key", key, "--alg", "ML-DSA-44", "--in", docs, "--out", sigs, "--json"],
                       a.tool, cpu, 0).stdout)
    assert j["items"] == 12 and j["failed"] == 0, j
    assert sorted(os.listdir(sigs)) == [f"f{i:02d}.bin.sig" for i in range(12)], os.listdir(sigs)
    run(["verify", "--pub", pub, "--in", docs, "--sigs", sigs], a.tool, cpu, 0)
    open(os.path.join(docs, "f04.bin"), "ab").write(b"changed")
    p = run(["verify", "--pub", pub, "--in", docs, "--sigs", sigs], a.tool, cpu, 1)
    assert p.stdout.splitlines() == [os.path.join(docs, "f04.bin") + ": signature does not verify"], p.stdout
    run(["sign", "--key", key, "--alg", "ML-DSA-44", "--in", os.path.join(d, "absent"), "--out", sigs], a.tool, cpu, 2)

def case_progress(a, d):
    """A progress line (items/s, ETA) when stderr is a terminal; none otherwise."""
    key, _ = make_key(a, d)
    _, manifest = setup(d, 200)
    sigs = os.path.join(d, "sigs"); os.mkdir(sigs)
    args = ["sign", "--key", key, "--alg", "ML-DSA-44", "--in", manifest, "--out", sigs, "--chunk", "20"]
    env = dict(os.environ); env["MLDSA_ACCEL_GPU"] = "off"
    master, slave = pty.openpty()
    p = subprocess.Popen([a.tool] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert p.wait(timeout=60) == 0, seen
    os.close(master)
    text = seen.decode(errors="replace")
    assert "\r" in text and "items/s" in text and "ETA" in text and "/200 items" in text, text
    p = run(args, a.tool, {"MLDSA_ACCEL_GPU": "off"}, 0)
    assert "\r" not in p.stderr and "ETA" not in p.stderr, p.stderr

def case_summary(a, d):
    """--json: p50/p99 item latency, and how many items the CPU and the device did."""
    key, pub = make_key(a, d)
    _, manifest = setup(d, 120)
    sigs = os.path.join(d, "sigs"); os.mkdir(sigs)
    cpu = {"MLDSA_ACCEL_GPU": "off"}
    j = json.loads(run(["sign", "--key", key, "--alg", "ML-DSA-44", "--in", manifest, "--out", sigs, "--json",
                        "--chunk", "30"], a.tool, cpu, 0).stdout)
    assert j["items"] == 120 and j["cpu_items"] == 120 and j["device_items"] == 0, j
    assert 0 < j["latency_p50_ms"] <= j["latency_p99_ms"] <= j["seconds"] * 1000, j
    # The calls' time: at least a typical call's, at most the run's (where
    # threads make their own calls it is their time in calls over their
    # number, which the longest call may exceed).
    assert j["latency_p50_ms"] / 1000 <= j["call_seconds"] <= j["seconds"], j
    assert j["per_device"] == {"cpu": 120}, j
    p = run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs], a.tool, cpu, 0)
    assert "latency p50" in p.stderr and "p99" in p.stderr, p.stderr
    # On the simulated device: what it did, by device index, adds up with the CPU's.
    sim = {"LD_LIBRARY_PATH": a.test_lib, "MLDSA_ACCEL_GPU": "on", "MLDSA_ACCEL_SIM_DEVICES": "2",
           "MLDSA_ACCEL_GPU_MAX_BATCH": "32"}
    # Each run builds its engine in the background while the CPU starts: on a
    # loaded machine a run can end before both devices took a batch, so runs
    # repeat (at most 60 s) until both did.
    deadline = time.time() + 60
    while True:
        j = json.loads(run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs, "--json"], a.tool, sim, 0).stdout)
        if all(j["per_device"].get(g, 0) > 0 for g in ("gpu0", "gpu1")) or time.time() > deadline:
            break
    assert j["device_items"] > 0 and j["cpu_items"] + j["device_items"] == 120, j
    per = j["per_device"]
    gpus = sorted(k for k in per if k != "cpu")
    assert per["cpu"] == j["cpu_items"] and gpus == ["gpu0", "gpu1"], j
    assert sum(per[k] for k in gpus) == j["device_items"], j

def case_interrupt(a, d):
    """Ctrl-C: what finished is written, exit 130 with the command to resume; --resume finishes the rest."""
    key, pub = make_key(a, d, "ML-DSA-87")
    files, manifest = setup(d, 3000)
    sigs = os.path.join(d, "sigs"); os.mkdir(sigs)
    args = ["sign", "--key", key, "--alg", "ML-DSA-87", "--in", manifest, "--out", sigs, "--chunk", "16"]
    env = dict(os.environ); env["MLDSA_ACCEL_GPU"] = "off"
    p = subprocess.Popen([a.tool] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 60
    while not os.listdir(sigs) and time.time() < deadline and p.poll() is None:
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, (p.returncode, err)
    done = [f for f in os.listdir(sigs) if f.endswith(".sig")]
    assert 0 < len(done) < 3000, len(done)
    assert not [f for f in os.listdir(sigs) if f.endswith(".part")], os.listdir(sigs)
    assert "--resume" in err and "interrupted" in err, err
    # A signature file cut short is not taken as done.
    cut = os.path.join(sigs, done[0])
    open(cut, "r+b").truncate(100)
    j = json.loads(run(args + ["--resume", "--json"], a.tool, {"MLDSA_ACCEL_GPU": "off"}, 0).stdout)
    assert j["skipped"] == len(done) - 1 and j["items"] == 3000 - len(done) + 1, (j, len(done))
    run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs], a.tool, {"MLDSA_ACCEL_GPU": "off"}, 0)
    # Nothing left: everything skipped.
    j = json.loads(run(args + ["--resume", "--json"], a.tool, {"MLDSA_ACCEL_GPU": "off"}, 0).stdout)
    assert j["skipped"] == 3000 and j["items"] == 0, j
    run(["verify", "--pub", pub, "--in", "-", "--resume"], a.tool, None, 2)
    # keygen --resume: only the key whose seed is missing is made again.
    kd = os.path.join(d, "kg"); os.mkdir(kd)
    run(["keygen", "--alg", "ML-DSA-44", "--count", "5", "--out", kd], a.tool, {"MLDSA_ACCEL_GPU": "off"}, 0)
    before = {f: open(os.path.join(kd, f), "rb").read() for f in os.listdir(kd)}
    os.remove(os.path.join(kd, "key-2.seed"))
    j = json.loads(run(["keygen", "--alg", "ML-DSA-44", "--count", "5", "--out", kd, "--resume", "--json"], a.tool,
                       {"MLDSA_ACCEL_GPU": "off"}, 0).stdout)
    assert j["skipped"] == 4 and j["items"] == 1, j
    after = {f: open(os.path.join(kd, f), "rb").read() for f in os.listdir(kd)}
    assert sorted(after) == sorted(before), sorted(after)
    assert all(after[f] == before[f] for f in after if not f.startswith("key-2.")), "a kept key changed"
    assert after["key-2.pub"] != before["key-2.pub"], "key-2 was not made again"

def case_files(a, d):
    """Files of any size (empty, bigger than a read block), chunks that reuse the buffers, a file that cannot
    be read, a signature of the wrong length, an output that is a symbolic link, and key files' modes."""
    key, pub = make_key(a, d)
    cpu = {"MLDSA_ACCEL_GPU": "off"}
    docs, sigs = os.path.join(d, "docs"), os.path.join(d, "sigs")
    os.mkdir(docs); os.mkdir(sigs)
    # Read blocks are 2 MiB: files just under, at and over one.
    sizes = [0, 1, 3 << 20, 100, (2 << 20) - 5, 7, 2 << 20] + [i * 37 for i in range(30)]
    for i, n in enumerate(sizes):
        open(os.path.join(docs, f"f{i:02d}"), "wb").write(bytes((i * 7 + k) % 251 for k in range(n)))
    sign = ["sign", "--key", key, "--alg", "ML-DSA-44", "--in", docs, "--out", sigs, "--json", "--chunk", "5"]
    j = json.loads(run(sign, a.tool, cpu, 0).stdout)
    assert j["items"] == len(sizes) and j["failed"] == 0, j
    verify = ["verify", "--pub", pub, "--in", docs, "--sigs", sigs, "--chunk", "5"]
    run(verify, a.tool, cpu, 0)
    # A signatures folder that cannot be opened: a named error, exit 2, not a failure per file.
    p = run(verify[:6] + [os.path.join(d, "no-such-folder")], a.tool, cpu, 2)
    assert "cannot open the folder" in p.stderr and not p.stdout, (p.stdout, p.stderr)
    # The same signatures from the provider through openssl: the tool read every byte of every file.
    for i in (0, 2, 4, 6, 12):
        f = os.path.join(docs, f"f{i:02d}")
        subprocess.run([a.openssl, "pkeyutl", "-verify", "-provider-path", a.provider_dir, "-provider", "mldsa-accel",
                        "-provider", "default", "-pubin", "-inkey", pub_pem(a, d, pub), "-rawin", "-in", f,
                        "-sigfile", os.path.join(sigs, f"f{i:02d}.sig")], check=True, capture_output=True)
    # One byte changed at the end of the biggest file: found.
    open(os.path.join(docs, "f02"), "ab").write(b"x")
    # A signature one byte too long: a malformed signature, not a read error.
    open(os.path.join(sigs, "f03.sig"), "ab").write(b"\0")
    # A file that cannot be read (a folder with the file's name in a manifest).
    manifest = os.path.join(d, "manifest")
    names = [os.path.join(docs, f"f{i:02d}") for i in range(len(sizes))]
    open(manifest, "w").write("\n".join(names + [os.path.join(d, "no-such-file")]) + "\n")
    p = run(["verify", "--pub", pub, "--in", manifest, "--sigs", sigs, "--chunk", "5"], a.tool, cpu, 1)
    lines = p.stdout.splitlines()
    assert lines == [names[2] + ": signature does not verify", names[3] + ": malformed signature",
                     os.path.join(d, "no-such-file") + ": cannot read the file or its signature"], lines
    # An output that is a symbolic link is not written through: listed, its target unchanged.
    target = os.path.join(d, "target")
    open(target, "w").write("keep")
    os.remove(os.path.join(sigs, "f05.sig"))
    os.symlink(target, os.path.join(sigs, "f05.sig"))
    p = run(sign[:-3], a.tool, cpu, 1)
    assert p.stdout.splitlines() == [os.path.join(docs, "f05") + ": cannot write the signature"], p.stdout
    assert open(target).read() == "keep"
    # Seeds are private: mode 0600, also over an existing file that was wider.
    kd = os.path.join(d, "kg"); os.mkdir(kd)
    open(os.path.join(kd, "key-1.seed"), "w").write("old")
    os.chmod(os.path.join(kd, "key-1.seed"), 0o644)
    run(["keygen", "--alg", "ML-DSA-44", "--count", "3", "--out", kd], a.tool, cpu, 0)
    for i in range(3):
        assert os.stat(os.path.join(kd, f"key-{i}.seed")).st_mode & 0o777 == 0o600, i
        assert os.path.getsize(os.path.join(kd, f"key-{i}.seed")) == 32, i

def pub_pem(a, d, pub):
    """The raw public key as a SubjectPublicKeyInfo PEM file, through the provider."""
    pem = os.path.join(d, "pub.pem")
    if not os.path.exists(pem):
        der = bytes.fromhex("30820532300b0609608648016503040311038205210" + "0") + open(pub, "rb").read()
        open(pem, "w").write("-----BEGIN PUBLIC KEY-----\n" + base64.encodebytes(der).decode() + "-----END PUBLIC KEY-----\n")
    return pem

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
