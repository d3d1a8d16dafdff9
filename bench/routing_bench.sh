#!/usr/bin/env bash
# routing_bench.sh - the measured routing policy (route/route_policy.h)
# against simulated devices from 10x slower than this machine's CPU to 100x
# faster: provider throughput through EVP (mldsa-accel-bench) with 16 threads
# and with 64 ASYNC jobs, and a lone caller's p99 latency, each next to the
# CPU-only run of the same invocation.
#
# A device model is a factor k of the CPU's own rate: the 16-thread CPU-only
# rate R is measured first, and the simulated device (one, doing no work:
# MLDSA_ACCEL_SIM_DEVICE_WORK=0, so a fast device is not limited by the
# host's cores computing for it) takes 50 us per launch plus 1 / (k R) per
# task. Its results are garbage, so the routed rows are unchecked
# (mldsa-accel-bench --unchecked): this measures where the policy sends
# work and what that costs, nothing about the results (the tests check
# those). The table's "device" column is the model's own rate, k R.
#
#   bench/routing_bench.sh [BUILD_DIR]      (default: build)
# Environment: ALG (ML-DSA-44), OPS ("sign verify"), FACTORS ("0.1 0.5 2 10 100"),
# RUN_SECONDS (2 per mode and load), REPEAT (1): with REPEAT=N each row runs
# the two modes alternately N times in one invocation (a fresh provider and
# policy each time) and reports medians: of the rates, of the p99s, and of
# the N routed/CPU ratios (with their range), which narrows the noise of a
# shared machine that a single pair leaves.
set -euo pipefail
build=${1:-build}
bench="$build/tools/mldsa-accel-bench/mldsa-accel-bench"
[ -x "$bench" ] || { echo "routing_bench: no $bench (build the project first)" >&2; exit 1; }
alg=${ALG:-ML-DSA-44}
ops=${OPS:-sign verify}
factors=${FACTORS:-0.1 0.5 2 10 100}
secs=${RUN_SECONDS:-2}
repeat=${REPEAT:-1}
modes=$(python3 -c "print(','.join(['cpu', 'routed'] * $repeat))")

# ops/s and p99 of one row of the bench table (its mode column starting with $2).
row() { awk -F'|' -v m="$2" '$2 ~ "^ *"m { gsub(/ /, "", $8); gsub(/ /, "", $10); gsub(/ /, "", $11); print $8, $10, $11 }' <<<"$1"; }
# The medians over the pairs of one invocation: CPU rate, CPU p99, routed rate,
# routed p99, queued, and the routed/CPU ratio (median, and min-max with REPEAT > 1).
pairs() {
  python3 - "$1" "$2" <<'PY'
import statistics as st, sys
cpu = [l.split() for l in sys.argv[1].splitlines() if l.strip()]
rt = [l.split() for l in sys.argv[2].splitlines() if l.strip()]
n = min(len(cpu), len(rt))
med = st.median
c_rate = [float(c[0]) for c in cpu[:n]]; c_p99 = [float(c[1]) for c in cpu[:n]]
r_rate = [float(r[0]) for r in rt[:n]]; r_p99 = [float(r[1]) for r in rt[:n]]
queued = [float(r[2].rstrip('%')) for r in rt[:n]]
ratios = [r / c for r, c in zip(r_rate, c_rate)]
ratio = '%.2f' % med(ratios) + (' (%.2f-%.2f)' % (min(ratios), max(ratios)) if n > 1 else '')
print('%d %.1f %d %.1f %d%% %s' % (med(c_rate), med(c_p99), med(r_rate), med(r_p99), med(queued), ratio))
PY
}

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) threads; $alg; $secs s per mode, $repeat pair(s) per row"
echo
echo "| op | device (x CPU) | load | CPU ops/s | routed ops/s | routed / CPU | device model ops/s | queued | CPU p99 us | routed p99 us |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for op in $ops; do
  out=$(MLDSA_ACCEL_GPU=off "$bench" --op "$op" --alg "$alg" --threads 16 --seconds "$secs" --modes cpu)
  read -r rate _ _ < <(row "$out" cpu)
  for k in $factors; do
    per_task=$(python3 -c "print(max(1, round(1e9 / ($k * $rate))))")
    device_rate=$(python3 -c "print(round($k * $rate))")
    if [ "$op" = sign ]; then speed="latency_us=50,sign_ns=$per_task"; else speed="latency_us=50,verify_ns=$per_task"; fi
    for load in "16 threads:--threads 16" "64 async jobs:--threads 1 --async-jobs 64" "lone caller:--threads 1"; do
      name=${load%%:*}
      # shellcheck disable=SC2086
      out=$(MLDSA_ACCEL_SIM_DEVICES=1 MLDSA_ACCEL_SIM_DEVICE_WORK=0 MLDSA_ACCEL_SIM_SPEED="$speed" \
            "$bench" --op "$op" --alg "$alg" ${load#*:} --seconds "$secs" --modes "$modes" --unchecked)
      read -r c_rate c_p99 r_rate r_p99 r_queued ratio < <(pairs "$(row "$out" cpu)" "$(row "$out" routed)")
      echo "| $op | $k | $name | $c_rate | $r_rate | $ratio | $device_rate | $r_queued | $c_p99 | $r_p99 |"
    done
  done
done
