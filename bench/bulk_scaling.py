#!/usr/bin/env python3
"""bulk_scaling.py - the bulk tool's CPU scaling: sign and verify items/s of
one ML-DSA key over N small files, for ML-DSA-44/65/87, three ways, R rounds
(medians; the three alternate, so a change of load touches all alike):

  1 core   the tool confined to core 0 (taskset -c 0)
  all      the tool on every core
  copies   one copy of the tool per core at the same time, each confined to
           its core: their summed rate is what the cores do when nothing is
           shared between them, measured at the same moment as the others

and prints a Markdown table (bench/RESULTS.md) with two ratios: all / (cores
x 1 core), the issue's measure, and all / copies, which does not count
against the tool a core that is slower than core 0 while the run lasts (on a
shared VM the cores' speeds differ and change). Beside the whole run's rate
(files read and written included), the rate inside the C API's calls (the
computation: the tool's call_seconds) and the CPU time per item (user +
system). The tool runs as a user would run it: chunks of 4096 items.

usage: bulk_scaling.py TOOL [N=2000] [R=3] [DIR]   (MLDSA_ACCEL_GPU=off is set)
DIR: where the files go (default: the temporary folder, $TMPDIR or /tmp); a
tmpfs (/dev/shm) takes the disk and its journal out of the figures.
Signatures go to a new, empty folder in every run, made (and the file system
synced) before the run is timed; the folders are deleted at the end only.
"""
import json, os, resource, statistics, subprocess, sys, tempfile

def finish(p, before):
    """(run items/s, call items/s, CPU us/item) of a finished Popen."""
    out = p.communicate()[0]
    if p.returncode != 0:
        sys.exit(f"bulk_scaling: {p.args} exited {p.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    j = json.loads(out)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return j["items_per_second"], j["items"] / j["call_seconds"], 1e6 * cpu / j["items"]

def start(cmd, env, core=None):
    pin = ["taskset", "-c", str(core)] if core is not None else []
    return subprocess.Popen(pin + cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

def main():
    tool = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    where = sys.argv[4] if len(sys.argv) > 4 else None
    cores = os.cpu_count()
    env = dict(os.environ, MLDSA_ACCEL_GPU="off")
    model = next((l.split(":", 1)[1].strip() for l in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
                  if l.startswith("Model name")), "?")
    with tempfile.TemporaryDirectory(dir=where) as d:
        fs = subprocess.run(["df", "--output=fstype", d], capture_output=True, text=True).stdout.split()[-1]
        print(f"CPU: {model}, {cores} CPUs; files in {d} ({fs}); load average before: {os.getloadavg()}")
        table(tool, n, runs, cores, env, d)
    print(f"load average after: {os.getloadavg()}")

def table(tool, n, runs, cores, env, d):
    print(f"| algorithm | op | run items/s: 1 core | {cores} cores | copies | {cores} cores / ({cores} x 1) | {cores} cores / copies "
          f"| call items/s: 1 core | {cores} cores | copies | {cores} cores / ({cores} x 1) | {cores} cores / copies "
          f"| CPU us/item: 1 core | {cores} cores |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    docs = os.path.join(d, "docs"); os.mkdir(docs)
    for i in range(n):
        with open(os.path.join(docs, f"doc{i:05d}"), "w") as f:
            f.write(f"document {i}\n" * 8)
    made = iter(range(1 << 30))
    for alg in ("ML-DSA-44", "ML-DSA-65", "ML-DSA-87"):
        keys = os.path.join(d, alg)
        os.mkdir(keys)
        subprocess.run([tool, "keygen", "--alg", alg, "--count", "1", "--out", keys], env=env, check=True,
                       capture_output=True)
        def cmd(op, out):
            if op == "sign":
                return [tool, "sign", "--key", os.path.join(keys, "key-0.seed"), "--alg", alg, "--in", docs,
                        "--out", out, "--json"]
            return [tool, "verify", "--pub", os.path.join(keys, "key-0.pub"), "--in", docs, "--sigs", sigs,
                    "--json"]
        def fresh(name):
            # A folder never used before, and nothing left for the kernel
            # to write back or delete while the next run is timed.
            path = os.path.join(d, f"{name}-{next(made)}")
            os.mkdir(path)
            os.sync()
            return path
        sigs = fresh(alg + "-sigs")  # what verify reads
        subprocess.run(cmd("sign", sigs), env=env, check=True, capture_output=True)
        for op in ("sign", "verify"):
            one, alls, copies = [], [], []
            for _ in range(runs):
                out = fresh("out")
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                one.append(finish(start(cmd(op, out), env, 0), before))
                out = fresh("out")
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                alls.append(finish(start(cmd(op, out), env), before))
                outs = [fresh(f"out{c}") for c in range(cores)]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                ps = [start(cmd(op, outs[c]), env, c) for c in range(cores)]
                each = [finish(p, before) for p in ps]
                copies.append((sum(e[0] for e in each), sum(e[1] for e in each)))
            med = lambda rs, k: statistics.median(r[k] for r in rs)
            r1, ra, rc = med(one, 0), med(alls, 0), med(copies, 0)
            k1, ka, kc = med(one, 1), med(alls, 1), med(copies, 1)
            print(f"| {alg} | {op} | {r1:.0f} | {ra:.0f} | {rc:.0f} | {100 * ra / (cores * r1):.0f}% | {100 * ra / rc:.0f}% "
                  f"| {k1:.0f} | {ka:.0f} | {kc:.0f} | {100 * ka / (cores * k1):.0f}% | {100 * ka / kc:.0f}% "
                  f"| {med(one, 2):.0f} | {med(alls, 2):.0f} |", flush=True)

if __name__ == "__main__":
    main()
