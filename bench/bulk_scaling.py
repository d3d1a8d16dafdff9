#!/usr/bin/env python3
"""bulk_scaling.py - the bulk tool's CPU scaling: sign and verify items/s of
one ML-DSA key over N small files, for ML-DSA-44/65/87, three ways, R rounds
(the three alternate within a round, so a change of load touches all alike;
with several tools, which goes first turns from round to round):

  1 core   the tool confined to one core (taskset -c C), on each core in
           turn: "cores x one core's rate" is the sum of these (on a shared
           VM the cores' speeds differ and change, so core 0 alone would
           make the bar depend on which core is slow at the time)
  all      the tool on every core
  copies   one copy of the tool per core at the same time, each confined to
           its core: their summed rate is what the cores do when nothing is
           shared between them, measured at the same moment as the others

and prints a Markdown table (bench/RESULTS.md) with two ratios, each the
median over rounds of that round's ratio: all / (sum of 1 core), the
issue's measure, and all / copies. "1 core" shows the mean of the cores'
rates. Beside the whole run's rate (files read and written included), the
rate inside the C API's calls (the computation: the tool's call_seconds)
and the CPU time per item (user + system). The tool runs as a user would
run it: chunks of 4096 items.

usage: bulk_scaling.py TOOL[,TOOL...] [N=2000] [R=3] [DIR] [BYTES]   (MLDSA_ACCEL_GPU=off)
Several tools (two builds, before and after a change): a row each, the
tools alternating within every round, on the same files and keys.
DIR: where the files go (default: the temporary folder, $TMPDIR or /tmp); a
tmpfs (/dev/shm) takes the disk and its journal out of the figures.
BYTES: each file's size (default: about 100, the case where reading and
writing files weighs most against the computation).
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
    tools = sys.argv[1].split(",")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    where = sys.argv[4] if len(sys.argv) > 4 else None
    size = int(sys.argv[5]) if len(sys.argv) > 5 else None
    cores = os.cpu_count()
    env = dict(os.environ, MLDSA_ACCEL_GPU="off")
    model = next((l.split(":", 1)[1].strip() for l in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
                  if l.startswith("Model name")), "?")
    with tempfile.TemporaryDirectory(dir=where) as d:
        fs = subprocess.run(["df", "--output=fstype", d], capture_output=True, text=True).stdout.split()[-1]
        print(f"CPU: {model}, {cores} CPUs; {n} files of {size or '~100'} bytes in {d} ({fs}); load average before: {os.getloadavg()}")
        table(tools, n, runs, cores, env, d, size)
    print(f"load average after: {os.getloadavg()}")

def table(tools, n, runs, cores, env, d, size):
    several = len(tools) > 1
    print(f"| {'tool | ' if several else ''}algorithm | op | run items/s: 1 core | {cores} cores | copies | {cores} cores / (sum of 1 core) "
          f"| {cores} cores / copies | call items/s: 1 core | {cores} cores | copies | {cores} cores / (sum of 1 core) "
          f"| {cores} cores / copies | CPU us/item: 1 core (core 0) | {cores} cores |")
    print(f"|{'---|' if several else ''}---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    docs = os.path.join(d, "docs"); os.mkdir(docs)
    for i in range(n):
        with open(os.path.join(docs, f"doc{i:05d}"), "w") as f:
            text = f"document {i}\n"
            f.write(text * 8 if size is None else (text * (size // len(text) + 1))[:size])
    settle(docs)
    made = iter(range(1 << 30))
    for alg in ("ML-DSA-44", "ML-DSA-65", "ML-DSA-87"):
        keys = os.path.join(d, alg)
        os.mkdir(keys)
        subprocess.run([tools[0], "keygen", "--alg", alg, "--count", "1", "--out", keys], env=env, check=True,
                       capture_output=True)
        def cmd(op, out, tool=tools[0]):
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
            # per tool: (each core alone, all, copies), each (run items/s, call items/s, CPU us/item)
            by_tool = {t: [] for t in tools}
            for r in range(runs):
                for tool in (tools if r % 2 == 0 else tools[::-1]):  # which goes first turns
                    one = []
                    for c in range(cores):
                        out = fresh("out")
                        before = resource.getrusage(resource.RUSAGE_CHILDREN)
                        one.append(finish(start(cmd(op, out, tool), env, c), before))
                    out = fresh("out")
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    alls = finish(start(cmd(op, out, tool), env), before)
                    outs = [fresh(f"out{c}") for c in range(cores)]
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    ps = [start(cmd(op, outs[c], tool), env, c) for c in range(cores)]
                    each = [finish(p, before) for p in ps]
                    copies = (sum(e[0] for e in each), sum(e[1] for e in each))
                    by_tool[tool].append((one, alls, copies))
            for tool, rounds in by_tool.items():
                row(tool if several else None, alg, op, rounds, cores)

def settle(docs):
    """Drops the kernel's caches (when run as root) and reads the inputs
    back. On ext4 without a journal (this project's VM), the kernel does not
    reuse an inode deleted in the last minute (five while its table block is
    dirty) when that block is cached, and creating a file passes over every
    such inode: minutes after an earlier run deleted its folders, signing
    ran at 3,000 items/s on one core instead of 19,000. With the caches
    dropped every table starts from the same state."""
    subprocess.run(["sync"])
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError:
        print("(the kernel's caches were not dropped: not root)")
    for name in os.listdir(docs):
        with open(os.path.join(docs, name), "rb") as f:
            f.read()

def row(tool, alg, op, rounds, cores):
    med = statistics.median
    def cols(k):
        one = med(sum(r[0][c][k] for c in range(cores)) / cores for r in rounds)
        return (f"{one:.0f} | {med(r[1][k] for r in rounds):.0f} | {med(r[2][k] for r in rounds):.0f} "
                f"| {100 * med(r[1][k] / sum(x[k] for x in r[0]) for r in rounds):.0f}% "
                f"| {100 * med(r[1][k] / r[2][k] for r in rounds):.0f}%")
    cpu1 = med(r[0][0][2] for r in rounds)
    print(f"| {tool + ' | ' if tool else ''}{alg} | {op} | {cols(0)} | {cols(1)} | {cpu1:.0f} "
          f"| {med(r[1][2] for r in rounds):.0f} |", flush=True)

if __name__ == "__main__":
    main()
