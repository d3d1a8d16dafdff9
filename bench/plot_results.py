#!/usr/bin/env python3
"""Turns bench_core JSON runs (one per CPU backend) and, optionally, the output
of OpenSSL 3.5's `openssl speed ML-DSA-44 ML-DSA-65 ML-DSA-87` into a bar chart:
operations per second of key generation, signing and verification, per
parameter set, one bar per backend and one for OpenSSL 3.5's built-in ML-DSA.

The core's rows are keygen, sign_cached and verify_cached (a key object used
again, as `openssl speed` does), as ops/s of the median CPU time, which a
busy machine disturbs less than wall time. Needs matplotlib (Debian:
python3-matplotlib).

Usage: plot_results.py --out PNG [--openssl-speed SPEED.txt] [--title TEXT] RUN.json...
       plot_results.py --table [--openssl-speed SPEED.txt] RUN.json...   (the numbers, no plot)
"""
import argparse
import json
import re
import sys

PARAMS = ["ML-DSA-44", "ML-DSA-65", "ML-DSA-87"]
OPS = [("keygen", "keygen"), ("sign", "sign_cached"), ("verify", "verify_cached")]
TO_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def load_run(path):
    """(label, {(op, param): ops/s}) from one bench_core JSON file."""
    with open(path) as f:
        data = json.load(f)
    label = data["context"].get("mldsa backend", path)
    rates = {}
    for r in data["benchmarks"]:
        if r.get("run_type") != "aggregate" or r.get("aggregate_name") != "median" or r.get("error_occurred"):
            continue
        bench, param = r["run_name"].split("/repeats:")[0].split("/", 1)
        for op, row in OPS:
            if bench == row and param in PARAMS:
                rates[(op, param)] = 1.0 / (r["cpu_time"] * TO_S[r["time_unit"]])
    return f"mldsa-accel {label}", rates


def load_speed(path):
    """{(op, param): ops/s} from `openssl speed` output (keygens/s, sign/s, verify/s columns)."""
    with open(path) as f:
        text = f.read()
    rates = {}
    for param in PARAMS:
        m = re.search(rf"^\s*{re.escape(param)}\s+\S+s\s+\S+s\s+\S+s\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", text, re.M)
        if m:
            for (op, _), value in zip(OPS, m.groups()):
                rates[(op, param)] = float(value)
    if not rates:
        sys.exit(f"plot_results.py: no ML-DSA rows in {path} (expected `openssl speed ML-DSA-...` output)")
    return rates


def series(args):
    out = [load_run(p) for p in args.runs]
    if args.openssl_speed:
        out.append(("OpenSSL 3.5 built-in", load_speed(args.openssl_speed)))
    return out


def table(all_series):
    print("| operation | parameter set | " + " | ".join(label for label, _ in all_series) + " |")
    print("|---|---|" + "---:|" * len(all_series))
    for op, _ in OPS:
        for param in PARAMS:
            cells = [f"{rates[(op, param)]:,.0f}" if (op, param) in rates else "-" for _, rates in all_series]
            print(f"| {op} | {param} | " + " | ".join(cells) + " |")


def plot(all_series, out, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(OPS), figsize=(13, 4.6))
    width = 0.8 / len(all_series)
    for ax, (op, _) in zip(axes, OPS):
        for i, (label, rates) in enumerate(all_series):
            xs = [p + (i - (len(all_series) - 1) / 2) * width for p in range(len(PARAMS))]
            ys = [rates.get((op, param), 0.0) for param in PARAMS]
            bars = ax.bar(xs, ys, width, label=label)
            for b, y in zip(bars, ys):
                if y:
                    ax.annotate(f"{y / 1000:.1f}k" if y >= 1000 else f"{y:.0f}", (b.get_x() + b.get_width() / 2, y),
                                ha="center", va="bottom", fontsize=7, rotation=90, xytext=(0, 2),
                                textcoords="offset points")
        ax.set_title(op)
        ax.set_xticks(range(len(PARAMS)))
        ax.set_xticklabels(PARAMS)
        ax.set_ylabel("operations per second (one core)")
        ax.margins(y=0.2)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper right")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="bench_core --benchmark_out JSON files")
    ap.add_argument("--openssl-speed", help="output of OpenSSL 3.5's openssl speed ML-DSA-44 ML-DSA-65 ML-DSA-87")
    ap.add_argument("--out", help="PNG to write")
    ap.add_argument("--title", default="ML-DSA operations per second: mldsa-accel's CPU backends and OpenSSL 3.5")
    ap.add_argument("--table", action="store_true", help="print the numbers as a Markdown table instead")
    args = ap.parse_args()
    all_series = series(args)
    if args.table or not args.out:
        table(all_series)
    if args.out:
        plot(all_series, args.out, args.title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
