#!/usr/bin/env python3
"""ptxas_check.py - the GPU kernels' resources as ptxas counts them for sm_90.

Compiles every kernel source of kernels/global/ to a cubin with `-Xptxas -v`
(nvcc's device passes only, no host code, no GPU needed), prints per kernel
and device function: registers, stack frame, spill stores and loads, static
shared memory, and fails when anything spills or a kernel's stack frame is
above its limit in ptxas_limits.txt (a kernel missing from that file fails
too, so a new kernel gets a limit on purpose). Dynamic shared memory (the
cooperative kernels' plans) is a launch argument, not ptxas's: coop_kernels_test
prints and checks it.

Exit 0: within limits; 1: a violation or a compile error; 77: no nvcc (the
test reports itself skipped with the reason).

Usage: ptxas_check.py --nvcc PATH --root SOURCE_DIR [--limits FILE] [--jobs N]
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

# The kernels' own names out of mangled ones: the cost model's helper.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from sass_count import demangle_short  # noqa: E402

SOURCES = ["keygen.cu", "verify.cu", "sign.cu", "coop_keygen.cu", "coop_verify.cu", "coop_sign.cu"]

ENTRY = re.compile(r"Compiling entry function '(\S+)' for '(sm_\d+)'")
PROPS = re.compile(r"Function properties for (\S+)")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")
SMEM = re.compile(r"(\d+) bytes smem")


def warps_by_registers(regs, block_threads=128):
    """Warps an sm_90 SM holds as registers allow (64 Ki registers, allocated
    per warp in units of 256, whole blocks; at most 64 warps). Every kernel
    of kernels/global/ runs 128-thread blocks; dynamic shared memory can lower
    this further (coop_kernels_test prints each plan)."""
    per_warp = -(-regs * 32 // 256) * 256
    warps_per_block = block_threads // 32
    blocks = min(65536 // (per_warp * warps_per_block), 64 // warps_per_block)
    return blocks * warps_per_block


def compile_one(nvcc, root, src, outdir):
    cmd = [nvcc, "-arch=sm_90", "-cubin", "-std=c++20", "-O3", "-DNDEBUG", "-I" + root, "-Xptxas", "-v",
           "-diag-suppress", "20012", os.path.join(root, "kernels", "global", src),
           "-o", os.path.join(outdir, src + ".cubin")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return src, p.returncode, p.stdout + p.stderr


def parse(text):
    """Rows (name, kind, registers, stack, spill stores, spill loads, smem) from ptxas -v output."""
    rows = {}
    current = None
    for line in text.splitlines():
        m = ENTRY.search(line)
        if m:
            current = m.group(1)
            rows.setdefault(current, {"kind": "kernel"})
            continue
        m = PROPS.search(line)
        if m:
            current = m.group(1)
            rows.setdefault(current, {"kind": "function"})
            continue
        if current is None:
            continue
        m = FRAME.search(line)
        if m:
            r = rows[current]
            r["stack"], r["spill_st"], r["spill_ld"] = (int(g) for g in m.groups())
        m = USED.search(line)
        if m:
            r = rows[current]
            r["regs"] = int(m.group(1))
            s = SMEM.search(line)
            r["smem"] = int(s.group(1)) if s else 0
    return rows


def read_limits(path):
    limits = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, stack = line.split()
                limits[name] = int(stack)
    return limits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--root", required=True)
    ap.add_argument("--limits", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "ptxas_limits.txt"))
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    nvcc = args.nvcc or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else "")
    if not nvcc or not os.path.exists(nvcc):
        print("skipped: no nvcc (looked for %s and /usr/local/cuda/bin/nvcc)" % (args.nvcc or "a CUDA compiler"))
        return 77
    limits = read_limits(args.limits)
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    print("ptxas resource check for sm_90 with %s (%s)" % (nvcc, version[-1] if version else "?"))

    failures = []
    table = []
    with tempfile.TemporaryDirectory() as out, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for src, rc, text in pool.map(lambda s: compile_one(nvcc, args.root, s, out), SOURCES):
            if rc != 0:
                failures.append("%s: nvcc failed (exit %d)\n%s" % (src, rc, text))
                continue
            for mangled, r in parse(text).items():
                if "regs" not in r and r["kind"] == "kernel":
                    failures.append("%s: no register count for %s" % (src, mangled))
                    continue
                table.append((src, demangle_short(mangled), r))
    names_seen = set()
    print()
    print("| source | kernel / function | registers | stack (bytes/thread) | spill stores | spill loads | static smem | stack limit | warps/SM by registers |")
    print("|---|---|---|---|---|---|---|---|---|")
    for src, name, r in sorted(table, key=lambda t: (t[0], t[2]["kind"] != "kernel", t[1])):
        key = (src, name)
        if key in names_seen:
            continue
        names_seen.add(key)
        limit = limits.get(name) if r["kind"] == "kernel" else None
        kernel = r["kind"] == "kernel"
        occupancy = "%d of 64" % warps_by_registers(r["regs"]) if kernel and "regs" in r else "-"
        print("| %s | %s%s | %s | %d | %d | %d | %s | %s | %s |" % (
            src, name, "" if kernel else " (device function)", r.get("regs", "-"), r.get("stack", 0),
            r.get("spill_st", 0), r.get("spill_ld", 0), r.get("smem", "-") if kernel else "-",
            "-" if limit is None else limit, occupancy))
        if r.get("spill_st", 0) or r.get("spill_ld", 0):
            failures.append("%s %s spills (%d bytes stored, %d loaded)" % (src, name, r["spill_st"], r["spill_ld"]))
        if r["kind"] == "kernel":
            if limit is None:
                failures.append("%s %s has no stack limit in %s" % (src, name, args.limits))
            elif r.get("stack", 0) > limit:
                failures.append("%s %s: stack frame %d bytes, above its limit of %d" % (src, name, r["stack"], limit))
    for name in limits:
        if not any(n == name for _, n, _ in table):
            failures.append("%s is in %s but no source compiled it" % (name, args.limits))
    print()
    if failures:
        print("FAILED:")
        for f in failures:
            print("  " + f)
        return 1
    print("ok: no spills, every kernel's stack frame within its limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
