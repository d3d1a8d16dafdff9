#!/usr/bin/env bash
# device_check.sh - the one GPU check: configure and build for sm_90, run the
# CPU-side kernel tests, the GPU-vs-CPU tests (100,000 random cases per
# parameter set; KeyGen/Verify, then signing) and the GPU benchmarks (KeyGen/
# Verify, then signing), then print a short table.
# Meant for the H200 machine (no network: only find_package dependencies);
# finishes within 8 minutes there. Exit 0: all passed; 1: a failure;
# 77: no CUDA device (the GPU tests reported themselves skipped).
#
# Environment: BUILD_DIR (default build-device), JOBS (16),
# MLDSA_ACCEL_GPU_CASES (100000), MLDSA_ACCEL_GPU_BATCHES (1000,10000,100000,1000000).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$repo/build-device}
jobs=${JOBS:-16}
export MLDSA_ACCEL_GPU_CASES=${MLDSA_ACCEL_GPU_CASES:-100000}
export MLDSA_ACCEL_GPU_BATCHES=${MLDSA_ACCEL_GPU_BATCHES:-1000,10000,100000,1000000}
log=$build/device_check.log
t_start=$SECONDS
results=()
failed=0
mkdir -p "$build"
: > "$log"

step() {  # NAME TIMEOUT COMMAND...: runs a step, records PASS/FAIL/SKIP and its time
  local name=$1 limit=$2 t0=$SECONDS rc
  shift 2
  # Never past the 8-minute budget (470 s, leaving room for the summary).
  local left=$((470 - (SECONDS - t_start)))
  if [ "$left" -lt "$limit" ]; then limit=$left; fi
  if [ "$limit" -le 0 ]; then
    results+=("$(printf '%-40s %-12s' "$name" "NOT RUN (out of time)")")
    failed=1
    return 1
  fi
  echo "=== $name" | tee -a "$log"
  timeout "$limit" "$@" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  local status=PASS
  if [ "$rc" -eq 77 ]; then status=SKIP; elif [ "$rc" -ne 0 ]; then status="FAIL (rc $rc)"; failed=1; fi
  results+=("$(printf '%-40s %-12s %4d s' "$name" "$status" $((SECONDS - t0)))")
  return "$rc"
}

if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$log"
fi

step "configure (sm_90, CUDA on)" 90 cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DMLDSA_ACCEL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMLDSA_ACCEL_BENCH=ON -DMLDSA_ACCEL_TESTS=ON &&
step "build (-j$jobs)" 200 cmake --build "$build" -j"$jobs" --target task_host_test gpu_test bench_gpu \
  sign_task_test sign_gpu_test bench_gpu_sign

gpu_skipped=0
if [ "$failed" -eq 0 ]; then
  step "task code on the CPU (1000 cases/set)" 90 "$build/tests/kernels/task_host_test" --gtest_brief=1
  step "sign task + scheduler on the CPU" 60 "$build/tests/kernels/sign_task_test" --gtest_brief=1
  # gtest exits 0 when tests are skipped: count them from its output.
  step "GPU vs CPU ($MLDSA_ACCEL_GPU_CASES cases/set)" 180 "$build/tests/gpu/gpu_test" --gtest_brief=1
  if grep -q "skipped: no CUDA device" "$log"; then
    gpu_skipped=1
    results[-1]="$(printf '%-40s %-12s' "GPU vs CPU" "SKIP (no CUDA device)")"
  fi
  if [ "$gpu_skipped" -eq 0 ]; then
    step "GPU signing vs CPU ($MLDSA_ACCEL_GPU_CASES cases/set)" 120 "$build/tests/gpu/sign_gpu_test" --gtest_brief=1
    step "GPU benchmark" 200 "$build/bench/bench_gpu"
    step "GPU signing benchmark" 150 "$build/bench/bench_gpu_sign"
  fi
fi

echo
echo "=== summary ($((SECONDS - t_start)) s; log: $log)"
printf '%s\n' "${results[@]}"
if grep -q "ops/s" "$log"; then
  echo
  echo "throughput (end to end, host buffers in and out):"
  grep -E "^(set |ML-DSA)" "$log" | grep -E "ops/s|FAILED|^set "
fi
if [ "$failed" -ne 0 ]; then exit 1; fi
if [ "$gpu_skipped" -eq 1 ]; then
  echo "skipped: no CUDA device (GPU tests and benchmark did not run)"
  exit 77
fi
exit 0
