#!/usr/bin/env python3
"""Turns bench_core's JSON output (--benchmark_format=json or --benchmark_out)
into the Markdown table of bench/RESULTS.md: median wall and CPU time and
TSC cycles per operation (ops/s from the wall time), and the provider's overhead over the core where both rows exist.

Usage: results_table.py bench.json
"""
import json
import sys

TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def main(path):
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
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
    print("| operation | parameter set | median µs | CPU µs | median cycles (TSC) | ops/s | cv |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, (us, cpu_us, cycles) in medians.items():
        op, pset = name.split("/", 1)
        cyc = f"{cycles:,.0f}" if cycles is not None else "-"
        cv = f"{cvs[name] * 100:.1f}%" if name in cvs else "-"
        print(f"| {op} | {pset} | {us:,.1f} | {cpu_us:,.1f} | {cyc} | {1e6 / us:,.0f} | {cv} |")
    overheads = []
    for name, (us, cpu_us, _) in medians.items():
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
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
