#!/usr/bin/env python3
"""bulk_scaling.py - the bulk tool's CPU scaling: sign and verify items/s of
one ML-DSA key over N small files, confined to one core (taskset -c 0) and on
all cores, for ML-DSA-44/65/87; the median of R runs each. Prints a Markdown
table (bench/RESULTS.md) and the machine's CPU model and load. Beside the
whole run's rate (files read and written included), the rate inside the one
call of the C API (the computation, all files in one chunk), and the CPU time
per item (user + system, of the whole process): on a machine loaded by
others, wall-clock scaling says how much of the other core the tool got, CPU
time per item whether running on more cores costs more work.

usage: bulk_scaling.py TOOL [N=2000] [R=3]   (MLDSA_ACCEL_GPU=off is set)
Last, a control: the one-core ML-DSA-44 sign run on core 0 and on core 1 at
the same time; on a machine whose cores are free and independent each keeps
its one-core rate.
"""
import json, os, resource, statistics, subprocess, sys, tempfile

def rate(cmd, env):
    """(items/s of the run, items/s inside the API call, CPU microseconds per item) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    j = json.loads(p.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # One chunk (--chunk N): the latency is the one call's time.
    return j["items_per_second"], j["items"] / (j["latency_p50_ms"] / 1000), 1e6 * cpu / j["items"]

def main():
    tool = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    cores = os.cpu_count()
    env = dict(os.environ, MLDSA_ACCEL_GPU="off")
    model = next((l.split(":", 1)[1].strip() for l in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
                  if l.startswith("Model name")), "?")
    print(f"CPU: {model}, {cores} CPUs; load average before: {os.getloadavg()}")
    print(f"| algorithm | op | run items/s, 1 core | run items/s, {cores} cores | run: {cores} cores / ({cores} x 1) "
          f"| call items/s, 1 core | call items/s, {cores} cores | call: {cores} cores / ({cores} x 1) "
          f"| CPU us/item, 1 core | CPU us/item, {cores} cores |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        docs = os.path.join(d, "docs"); os.mkdir(docs)
        for i in range(n):
            with open(os.path.join(docs, f"doc{i:05d}"), "w") as f:
                f.write(f"document {i}\n" * 8)
        for alg in ("ML-DSA-44", "ML-DSA-65", "ML-DSA-87"):
            keys, sigs = os.path.join(d, alg), os.path.join(d, alg + "-sigs")
            os.mkdir(keys); os.mkdir(sigs)
            subprocess.run([tool, "keygen", "--alg", alg, "--count", "1", "--out", keys], env=env, check=True,
                           capture_output=True)
            ops = {
                "sign": [tool, "sign", "--key", os.path.join(keys, "key-0.seed"), "--alg", alg, "--in", docs,
                         "--out", sigs, "--json", "--chunk", str(n)],
                "verify": [tool, "verify", "--pub", os.path.join(keys, "key-0.pub"), "--in", docs, "--sigs", sigs,
                           "--json", "--chunk", str(n)],
            }
            for op, cmd in ops.items():
                one, alls = [], []
                for _ in range(runs):  # alternated, so load changes touch both alike
                    one.append(rate(["taskset", "-c", "0"] + cmd, env))
                    alls.append(rate(cmd, env))
                med = lambda runs, k: statistics.median(r[k] for r in runs)
                m1, ma, k1, ka, c1, ca = med(one, 0), med(alls, 0), med(one, 1), med(alls, 1), med(one, 2), med(alls, 2)
                print(f"| {alg} | {op} | {m1:.0f} | {ma:.0f} | {100 * ma / (cores * m1):.0f}% "
                      f"| {k1:.0f} | {ka:.0f} | {100 * ka / (cores * k1):.0f}% | {c1:.0f} | {ca:.0f} |", flush=True)
        # Control: the same one-core run on core 0 and on core 1 at once. On a
        # machine with two free cores each keeps its one-core rate.
        alg = "ML-DSA-44"
        keys = os.path.join(d, alg)
        env_json = lambda c, out: [tool, "sign", "--key", os.path.join(keys, "key-0.seed"), "--alg", alg, "--in", docs,
                                   "--out", out, "--json", "--chunk", str(n)]
        both = []
        for _ in range(runs):
            outs = [os.path.join(d, f"control{c}") for c in (0, 1)]
            for o in outs:
                os.makedirs(o, exist_ok=True)
            ps = [subprocess.Popen(["taskset", "-c", str(c)] + env_json(c, outs[c]), stdout=subprocess.PIPE, text=True,
                                   env=env) for c in (0, 1)]
            js = [json.loads(p.communicate()[0]) for p in ps]
            both.append([j["items"] / (j["latency_p50_ms"] / 1000) for j in js])
        each = [statistics.median(b[c] for b in both) for c in (0, 1)]
        print(f"control, {alg} sign, one-core runs on core 0 and core 1 at once: call items/s {each[0]:.0f} and "
              f"{each[1]:.0f} (sum {sum(each):.0f})")
    print(f"load average after: {os.getloadavg()}")

if __name__ == "__main__":
    main()
