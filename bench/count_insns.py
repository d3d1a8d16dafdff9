#!/usr/bin/env python3
"""count_insns.py - executed AArch64 instructions per kernel call, counted under
qemu-aarch64, for each backend: a stand-in for timing where no Arm machine is
at hand (instruction counts are not time: they ignore latency, throughput and
memory; see bench/RESULTS.md).

For each kernel of bench/kernel_insns.cc it runs the program twice under
qemu-aarch64 -d in_asm,exec,nochain (every translated block's instructions,
and every execution of a block): with CALLS calls and with none. The
difference over CALLS is one call. Backends: MLDSA_ACCEL_CPU=ref and neon;
qemu's default CPU model ("max") has the SHA-3 extension, so neon there is the
SHA-3 table; QEMU_CPU=cortex-a72 gives the plain one.

  bench/count_insns.py --binary build-aarch64/bench/kernel_insns \
      --qemu-ld-prefix /usr/aarch64-linux-gnu [--kernels ntt,sign_65] [--calls 4]
Prints a Markdown table.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading

RUNS = [  # column, MLDSA_ACCEL_CPU, QEMU_CPU
    ("ref", "ref", "max"),
    ("neon (plain, cortex-a72)", "neon", "cortex-a72"),
    ("neon (SHA-3, max)", "neon", "max"),
]
TRACE = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/")
INSN = re.compile(r"^0x([0-9a-f]+):\s")


def count(args, kernel, calls, accel_cpu, qemu_cpu):
    """Executed guest instructions of one run of kernel_insns."""
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "log")
        os.mkfifo(fifo)
        env = dict(os.environ, MLDSA_ACCEL_CPU=accel_cpu, QEMU_CPU=qemu_cpu)
        cmd = ["qemu-aarch64", "-L", args.qemu_ld_prefix, "-d", "in_asm,exec,nochain", "-D", fifo,
               args.binary, kernel, str(calls)]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = {}
        reader = threading.Thread(target=lambda: out.update(r=proc.communicate()))
        reader.start()
        sizes, total = {}, 0
        block_pc, block_n = None, 0
        with open(fifo, errors="replace") as log:
            for line in log:
                m = TRACE.match(line)
                if m:
                    total += sizes[int(m.group(1), 16)]
                    continue
                m = INSN.match(line)
                if m:
                    if block_pc is None:
                        block_pc = int(m.group(1), 16)
                    block_n += 1
                elif block_pc is not None:  # a block's listing ends
                    sizes[block_pc] = block_n
                    block_pc, block_n = None, 0
        reader.join()
        stdout, stderr = out["r"]
        if proc.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed: {stderr.decode(errors='replace')}")
        active = stdout.decode().split()[0]
        if active != accel_cpu:
            sys.exit(f"MLDSA_ACCEL_CPU={accel_cpu} ran backend {active}")
        return total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--qemu-ld-prefix", default="/usr/aarch64-linux-gnu")
    ap.add_argument("--kernels", help="comma-separated (default: all)")
    ap.add_argument("--calls", type=int, default=4)
    args = ap.parse_args()
    kernels = args.kernels.split(",") if args.kernels else subprocess.run(
        ["qemu-aarch64", "-L", args.qemu_ld_prefix, args.binary, "--list"], check=True, capture_output=True,
        text=True).stdout.split()
    print("| kernel | " + " | ".join(c for c, _, _ in RUNS) + " | plain / ref | SHA-3 / ref |")
    print("|---|" + "---:|" * (len(RUNS) + 2))
    for k in kernels:
        per = []
        for _, accel, qcpu in RUNS:
            n = count(args, k, args.calls, accel, qcpu) - count(args, k, 0, accel, qcpu)
            per.append(n / args.calls)
        ratios = [f"{per[i] / per[0]:.2f}" for i in (1, 2)]
        print(f"| {k} | " + " | ".join(f"{v:,.0f}" for v in per) + " | " + " | ".join(ratios) + " |", flush=True)


if __name__ == "__main__":
    main()
