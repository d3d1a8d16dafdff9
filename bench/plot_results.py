#!/usr/bin/env python3
"""plot_results.py - a bar chart of ML-DSA operations per second on this machine:
key generation, signing and verification per parameter set, one bar for each
CPU backend the machine runs (the default first) and one for OpenSSL 3.5's
built-in ML-DSA.

Run mode (the usual one) measures first:

  plot_results.py --bench-core build/bench/bench_core [--openssl35 $OPENSSL35] [--out-dir DIR]

runs bench_core once with the default backend, which reports the backends
this CPU runs ("mldsa backends" in its context), then once per other backend
(MLDSA_ACCEL_CPU=<name>), and `openssl speed` of OpenSSL 3.5's own ML-DSA. It
writes DIR/bench-<backend>.json, DIR/speed35.txt and DIR/ops_per_second.png;
DIR defaults to plot/ in bench_core's build folder, outside the source tree.
Writing into tracked files (bench/results/, bench/ops_per_second.png) takes an
explicit --out-dir and --png.

File mode redraws from earlier runs:

  plot_results.py --machine TEXT [--openssl-speed SPEED.txt] [--out PNG | --table] RUN.json...

The core's rows are keygen, sign_cached and verify_cached (a key object used
again, as `openssl speed` does), as ops/s of the median CPU time, which a busy
machine disturbs less than wall time. The title names the machine, the footer
the command. Plotting needs matplotlib (Debian: python3-matplotlib); --table
prints the numbers without it.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

PARAMS = ["ML-DSA-44", "ML-DSA-65", "ML-DSA-87"]
OPS = [("keygen", "keygen"), ("sign", "sign_cached"), ("verify", "verify_cached")]
TO_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
FILTER = "^(keygen|sign_cached|verify_cached)/"


def load_run(path):
    """(label, {(op, param): ops/s}, context) from one bench_core JSON file."""
    with open(path) as f:
        data = json.load(f)
    ctx = data["context"]
    label = ctx.get("mldsa backend", path)
    if ctx.get("mldsa tuning"):
        label += "@" + ctx["mldsa tuning"]
    rates = {}
    for r in data["benchmarks"]:
        if r.get("run_type") != "aggregate" or r.get("aggregate_name") != "median" or r.get("error_occurred"):
            continue
        bench, param = r["run_name"].split("/repeats:")[0].split("/", 1)
        for op, row in OPS:
            if bench == row and param in PARAMS:
                rates[(op, param)] = 1.0 / (r["cpu_time"] * TO_S[r["time_unit"]])
    return f"mldsa-accel {label}", rates, ctx


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
    m = re.search(r"^version: (\S+)", text, re.M)
    return f"OpenSSL {m.group(1) if m else '3.5'} built-in", rates


def machine():
    """The CPU (model name, family and model number), its count and the load, as
    every figure of this project names them."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    cpu = info.get("model name", "unknown CPU")
    if "cpu family" in info and "model" in info:
        cpu += f" (family {info['cpu family']} model {info['model']})"
    return f"{cpu}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start"


def run_bench(exe, backend, out, min_time):
    env = dict(os.environ)
    env.pop("MLDSA_ACCEL_CPU", None)
    if backend:
        env["MLDSA_ACCEL_CPU"] = backend
    cmd = [exe, f"--benchmark_filter={FILTER}", f"--benchmark_min_time={min_time}",
           f"--benchmark_out={out}", "--benchmark_out_format=json"]
    print(f"$ {'MLDSA_ACCEL_CPU=' + backend + ' ' if backend else ''}{shlex.join(cmd)}", flush=True)
    # bench_core's console output only if it fails (the results are in the JSON).
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"plot_results.py: bench_core failed:\n{p.stdout[-3000:]}")
    return out


def measure(args):
    """Runs bench_core per backend and OpenSSL 3.5's speed; returns the series, default first."""
    where = machine()
    out_dir = args.out_dir or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.bench_core))), "plot")
    os.makedirs(out_dir, exist_ok=True)
    first = run_bench(args.bench_core, None, os.path.join(out_dir, "bench-default.json"), args.min_time)
    label, rates, ctx = load_run(first)
    default = ctx.get("mldsa backend", "")
    all_series = [(label + " (default)", rates)]
    os.replace(first, os.path.join(out_dir, f"bench-{default}.json"))
    for backend in [b for b in ctx.get("mldsa backends", "").split(",") if b and b != default]:
        path = run_bench(args.bench_core, backend, os.path.join(out_dir, f"bench-{backend}.json"), args.min_time)
        label, rates, _ = load_run(path)
        all_series.append((label, rates))
    if args.openssl35:
        speed = os.path.join(out_dir, "speed35.txt")
        cmd = [args.openssl35, "speed", "-seconds", "2", *PARAMS]
        print(f"$ OPENSSL_CONF=/dev/null {shlex.join(cmd)} > {speed}", flush=True)
        with open(speed, "w") as f:
            subprocess.run(cmd, env=dict(os.environ, OPENSSL_CONF="/dev/null"), check=True, stdout=f,
                           stderr=subprocess.DEVNULL)
        all_series.append(load_speed(speed))
    return all_series, out_dir, where


def table(all_series):
    print("| operation | parameter set | " + " | ".join(label for label, _ in all_series) + " |")
    print("|---|---|" + "---:|" * len(all_series))
    for op, _ in OPS:
        for param in PARAMS:
            cells = [f"{rates[(op, param)]:,.0f}" if (op, param) in rates else "-" for _, rates in all_series]
            print(f"| {op} | {param} | " + " | ".join(cells) + " |")


def plot(all_series, out, title, footer):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(OPS), figsize=(13, 5))
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
        ax.set_ylabel("operations per second (one core, CPU time)")
        ax.margins(y=0.2)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper right")
    fig.suptitle(title, fontsize=10)
    fig.text(0.01, 0.01, footer, fontsize=7, family="monospace", va="bottom", wrap=True)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="*", help="file mode: bench_core --benchmark_out JSON files, the default backend's first")
    ap.add_argument("--bench-core", help="run mode: the bench_core program to run per backend")
    ap.add_argument("--openssl35", help="run mode: an OpenSSL 3.5+ openssl whose own ML-DSA to measure beside")
    ap.add_argument("--out-dir", help="run mode: where the runs and the plot go (default: plot/ in bench_core's build folder)")
    ap.add_argument("--png", help="run mode: the plot's path (default: OUT_DIR/ops_per_second.png)")
    ap.add_argument("--min-time", default="0.2", help="run mode: bench_core's --benchmark_min_time (0.2)")
    ap.add_argument("--openssl-speed", help="file mode: output of OpenSSL 3.5's openssl speed ML-DSA-44 ML-DSA-65 ML-DSA-87")
    ap.add_argument("--machine", help="file mode: the machine the runs were made on, for the title")
    ap.add_argument("--out", help="file mode: PNG to write")
    ap.add_argument("--table", action="store_true", help="print the numbers as a Markdown table (no matplotlib needed)")
    args = ap.parse_args()
    command = "bench/plot_results.py " + shlex.join(sys.argv[1:])
    if args.bench_core:
        if args.runs:
            ap.error("run mode (--bench-core) takes no JSON files")
        all_series, out_dir, where = measure(args)
        out = args.png or os.path.join(out_dir, "ops_per_second.png")
    else:
        if not args.runs:
            ap.error("give --bench-core (run mode) or bench_core JSON files (file mode)")
        if args.out and not args.machine:
            ap.error("file mode: --machine names the machine the runs were made on, for the title")
        all_series = [load_run(p)[:2] for p in args.runs]
        if args.openssl_speed:
            all_series.append(load_speed(args.openssl_speed))
        out, where = args.out, args.machine
    table(all_series)
    if out and not args.table:
        title = f"ML-DSA operations per second, one core: mldsa-accel's CPU backends and OpenSSL 3.5\n{where}"
        plot(all_series, out, title, f"$ {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
