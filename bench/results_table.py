#!/usr/bin/env python3
"""Turns bench_core's JSON output (--benchmark_format=json or --benchmark_out)
into the Markdown table of bench/RESULTS.md: median wall and CPU time and
TSC cycles per operation (ops/s from the wall time), and the provider's overhead over the core where both rows exist.

Usage: results_table.py bench.json
       results_table.py A.json B.json ...   (one column per run: median CPU µs,
                                             labelled with the run's backend)
"""
import json
import sys

TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
OPS = ["keygen", "sign_fresh", "sign_cached", "evp_digestsign", "verify_fresh", "verify_cached"]


def row_order(name):
    """Parameter set, then operation (random interleaving shuffles the file)."""
    op, pset = name.split("/", 1)
    return (pset, OPS.index(op) if op in OPS else len(OPS), op)


def load(path):
    """(backend, medians, cvs) of one bench_core JSON file."""
    with open(path) as f:
        data = json.load(f)
    runs = data["benchmarks"]
    medians = {}
    cvs = {}
    for r in runs:
        if r.get("run_type") != "aggregate":
            continue
        if r.get("error_occurred"):
            continue
        name = r["run_name"].split("/repeats:")[0]
        if r["aggregate_name"] == "median":
            unit = TO_US[r["time_unit"]]
            medians[name] = (r["real_time"] * unit, r["cpu_time"] * unit, r.get("cycles"))
        elif r["aggregate_name"] == "cv":
            cvs[name] = r["real_time"]  # cv is a ratio, stored in the time field
    return data["context"].get("mldsa backend", path), medians, cvs


def compare(paths):
    runs = [load(p) for p in paths]
    print("| operation | parameter set | " + " | ".join(f"{b} CPU µs" for b, _, _ in runs) + " |")
    print("|---|---|" + "---:|" * len(runs))
    for name in sorted(runs[0][1], key=row_order):
        op, pset = name.split("/", 1)
        cells = [f"{m[name][1]:,.1f}" if name in m else "-" for _, m, _ in runs]
        print(f"| {op} | {pset} | " + " | ".join(cells) + " |")


def main(path):
    _, medians, cvs = load(path)
    print("| operation | parameter set | median µs | CPU µs | cycles (TSC) | cycles in CPU time | ops/s | cv |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, (us, cpu_us, cycles) in sorted(medians.items(), key=lambda kv: row_order(kv[0])):
        op, pset = name.split("/", 1)
        cyc = f"{cycles:,.0f}" if cycles is not None else "-"
        # TSC ticks scaled by CPU time / wall time: the ticks while the thread
        # actually ran, which preemption on a shared machine does not inflate.
        cyc_cpu = f"{cycles * cpu_us / us:,.0f}" if cycles is not None and us > 0 else "-"
        cv = f"{cvs[name] * 100:.1f}%" if name in cvs else "-"
        print(f"| {op} | {pset} | {us:,.1f} | {cpu_us:,.1f} | {cyc} | {cyc_cpu} | {1e6 / us:,.0f} | {cv} |")
    overheads = []
    for name, (us, cpu_us, _) in sorted(medians.items(), key=lambda kv: row_order(kv[0])):
        if name.startswith("evp_digestsign/"):
            pset = name.split("/", 1)[1]
            core = medians.get("sign_cached/" + pset)
            if core:
                overheads.append(f"{pset} {100 * (us / core[0] - 1):+.1f}% "
                                 f"(CPU time {100 * (cpu_us / core[1] - 1):+.1f}%)")
    if overheads:
        print()
        print("EVP_DigestSign through the provider vs the core's sign (cached key): "
              + ", ".join(overheads))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        compare(sys.argv[1:])
