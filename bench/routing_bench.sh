#!/usr/bin/env bash
# routing_bench.sh - the measured routing policy (provider/route_policy.h)
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
# RUN_SECONDS (2 per mode and load).
set -euo pipefail
build=${1:-build}
bench="$build/tools/mldsa-accel-bench/mldsa-accel-bench"
[ -x "$bench" ] || { echo "routing_bench: no $bench (build the project first)" >&2; exit 1; }
alg=${ALG:-ML-DSA-44}
ops=${OPS:-sign verify}
factors=${FACTORS:-0.1 0.5 2 10 100}
secs=${RUN_SECONDS:-2}

# ops/s and p99 of one row of the bench table (its mode column starting with $2).
row() { awk -F'|' -v m="$2" '$2 ~ "^ *"m { gsub(/ /, "", $8); gsub(/ /, "", $10); gsub(/ /, "", $11); print $8, $10, $11 }' <<<"$1"; }

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) threads; $alg; $secs s per mode"
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
            "$bench" --op "$op" --alg "$alg" ${load#*:} --seconds "$secs" --modes cpu,routed --unchecked)
      read -r c_rate c_p99 _ < <(row "$out" cpu)
      read -r r_rate r_p99 r_queued < <(row "$out" routed)
      ratio=$(python3 -c "print('%.2f' % ($r_rate / $c_rate))")
      echo "| $op | $k | $name | $c_rate | $r_rate | $ratio | $device_rate | $r_queued | $c_p99 | $r_p99 |"
    done
  done
done
