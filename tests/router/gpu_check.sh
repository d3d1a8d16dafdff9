#!/usr/bin/env bash
# gpu_check.sh - the router's checks that need a CUDA device, as one script for
# a GPU machine (run from the repository root):
#   1. the router suite with the real engine (GpuExecutor.* no longer skips);
#   2. raw engine throughput (bench_gpu, ML-DSA-44) against the same work
#      through EVP with the provider routing (async jobs, threads);
#   3. a lone synchronous call's latency, CPU only vs routed.
# Usage: tests/router/gpu_check.sh [build-dir] ; exits 77 without a CUDA device.
set -euo pipefail
B=${1:-build-gpu-router}
J=$(nproc)

cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DMLDSA_ACCEL_CUDA=ON -DMLDSA_ACCEL_BENCH=ON >/dev/null
cmake --build "$B" -j"$J" --target router_tests router_provider_tests mldsa-accel-bench bench_gpu

raw=$(MLDSA_ACCEL_GPU_SETS=44 MLDSA_ACCEL_GPU_BATCHES=${GPU_BATCHES:-10000,100000} "$B/bench/bench_gpu")
echo "$raw"
if grep -q "skipped: no CUDA device" <<<"$raw"; then
  echo "skipped: no CUDA device"
  exit 77
fi

echo "== router tests (GPU executor included)"
ctest --test-dir "$B" -L router --output-on-failure

bench=$B/tools/mldsa-accel-bench/mldsa-accel-bench
secs=${SECONDS_PER_ROW:-5}
echo "== verify through EVP, routed to the GPU (compare ops/s with bench_gpu's Verify rows)"
MLDSA_ACCEL_GPU=on "$bench" --op verify --alg ML-DSA-44 --threads 1 --async-jobs 128 --seconds "$secs"
MLDSA_ACCEL_GPU=on "$bench" --op verify --alg ML-DSA-44 --threads 16 --seconds "$secs"
MLDSA_ACCEL_GPU=on "$bench" --op verify --alg ML-DSA-44 --threads 16 --async-jobs 128 --seconds "$secs" --modes routed
echo "== the same without the idle flush (batches close on size or gpu_max_wait_us only)"
MLDSA_ACCEL_GPU=on MLDSA_ACCEL_GPU_IDLE_FLUSH_US=0 "$bench" --op verify --alg ML-DSA-44 --threads 1 --async-jobs 128 --seconds "$secs" --modes routed
echo "== signing through EVP, routed to the GPU"
MLDSA_ACCEL_GPU=on "$bench" --op sign --alg ML-DSA-44 --threads 16 --seconds "$secs"
MLDSA_ACCEL_GPU=on "$bench" --op sign --alg ML-DSA-44 --threads 1 --async-jobs 128 --seconds "$secs"
echo "== a lone synchronous call: p50 routed within 5% of cpu"
MLDSA_ACCEL_GPU=on "$bench" --op sign --alg ML-DSA-44 --threads 1 --seconds "$secs"
MLDSA_ACCEL_GPU=on "$bench" --op verify --alg ML-DSA-44 --threads 1 --seconds "$secs"
