#!/usr/bin/env bash
# test.sh - build and run every test of mldsa-accel. Exits non-zero on any failure.
#
# Stages, each in its own build folder under the repository (or under
# $MLDSA_ACCEL_BUILD_ROOT):
#   1. build/        Release build, the full ctest suite (core, provider, CLI,
#                    and OpenSSL 3.5 interop through $OPENSSL35)
#   2. build-asan/   clang-14 ASan + UBSan build (-DMLDSA_ACCEL_SANITIZE=ON, -O1), full ctest
#                    (the tests that run the openssl CLI with the ASan runtime preloaded;
#                    the OpenSSL 3.6 interop and `openssl speed` runs only in release)
#   3. build-ct/     valgrind constant-time check (-DMLDSA_ACCEL_CT_TESTING=ON) of ML-DSA, round-3
#                    Dilithium and Falcon signing, ctest -L ct
#   4. build-tsan/   ThreadSanitizer build of the router, batch queue and GPU engine tests
#                    (-DMLDSA_ACCEL_TSAN=ON), ctest -L 'router|gpusim'
#   5. build/        servers: the .deb in Debian 13 and 12 roots with nginx, HAProxy,
#                    curl, Python (ctest -L servers; needs root, else skipped)
#   6. build-ossl40/ the module built against OpenSSL 4.0's headers (Debian
#                    experimental, scripts/fetch-openssl.sh 4.0), ctest -L openssl40
#   7. build-fuzz/   clang-14 libFuzzer + ASan + UBSan (-DMLDSA_ACCEL_FUZZ=ON): each target in
#                    tests/fuzz for MLDSA_ACCEL_FUZZ_SECONDS (30) from its corpus, ctest -L fuzz;
#                    fuzz_differential against OpenSSL 3.5's ML-DSA on $OPENSSL35's libcrypto
#   8. build-msan/   clang-14 MemorySanitizer constant-time check of the core on every
#                    backend (-DMLDSA_ACCEL_MSAN=ON), ctest -L ct
#   9. build-aarch64/ AArch64 cross build of the whole project but the benchmarks (cmake/aarch64-linux-gnu.cmake,
#                    arm64 libraries from scripts/fetch-arm64-root.sh), the core suite (ref and
#                    neon) and the provider suite under qemu-aarch64, the Falcon tests (portable
#                    and NEON kernels), and the neon equivalence
#                    tests again on a CPU model without the SHA-3 extension (QEMU_CPU=cortex-a72)
# Where /usr/local/cuda/bin/nvcc exists, the release build compiles the CUDA
# engine (kernels/) for sm_90 too (-DMLDSA_ACCEL_CUDA=ON: a broken CUDA setup
# fails rather than being skipped); the GPU tests skip themselves without a GPU.
# OPENSSL35 (a 3.5+ openssl binary) is taken from the environment, else fetched
# with scripts/fetch-openssl35.sh; OPENSSL36 and OPENSSL40 likewise with
# scripts/fetch-openssl.sh 3.6 / 4.0 (a failed fetch of those two is reported
# as skipped: Debian's sid and experimental move). MLDSA_ACCEL_SKIP_OPENSSL35=1
# skips every fetch (the tests that need them then report themselves skipped).
# Every test without a TIMEOUT of its own fails after MLDSA_ACCEL_TEST_TIMEOUT s (300).
# Options: --only STAGE[,STAGE...] with STAGE in release,asan,ct,tsan,servers,openssl40,fuzz,msan,aarch64.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_root=${MLDSA_ACCEL_BUILD_ROOT:-$repo}
jobs=${MLDSA_ACCEL_JOBS:-$(nproc)}
only="release,asan,ct,tsan,servers,openssl40,fuzz,msan,aarch64"
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
wanted() { [[ ",$only," == *",$1,"* ]]; }

"$repo/scripts/setup.sh" || exit 1

summary=()
failed=0
# Reports of an earlier run must not count in this run's summary.
rm -f "$build_root"/build{,-asan,-ct,-tsan,-ossl40,-fuzz,-msan,-aarch64}/ctest-junit*.xml
t_all=$SECONDS
# run_stage NAME COMMAND...: runs one stage, records PASS/FAIL and its time.
run_stage() {
  local name=$1 t0=$SECONDS
  shift
  echo
  echo "=================== $name"
  if "$@"; then
    summary+=("PASS  $name ($((SECONDS - t0)) s)")
  else
    summary+=("FAIL  $name ($((SECONDS - t0)) s)")
    failed=1
  fi
}

configure_and_build() {  # DIR [cmake options...]
  local dir=$1
  shift
  cmake -S "$repo" -B "$dir" "$@" && cmake --build "$dir" -j"$jobs"
}

has_target() {  # DIR TARGET: whether the configured build has that target
  local list
  list=$(cmake --build "$1" --target help) || return 1
  grep -q -- " $2\$" <<<"$list"
}

# ctest with a JUnit report, which the summary counts from. A test without a
# TIMEOUT of its own is stopped (and fails) after $test_timeout s: a hang must
# fail its test, not the whole run.
test_timeout=${MLDSA_ACCEL_TEST_TIMEOUT:-300}
run_ctest() {  # DIR [ctest options...]
  local dir=$1
  shift
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" --timeout "$test_timeout" --output-junit "$dir/ctest-junit.xml" "$@"
}

# The fuzz stage's differential target runs on OpenSSL 3.5's libcrypto too.
if wanted release || wanted asan || wanted fuzz; then
  if [ -n "${OPENSSL35:-}" ]; then
    echo "test.sh: OPENSSL35=$OPENSSL35 (from the environment)"
  elif [ "${MLDSA_ACCEL_SKIP_OPENSSL35:-0}" = 1 ]; then
    echo "test.sh: MLDSA_ACCEL_SKIP_OPENSSL35=1: OpenSSL 3.5 interop tests will be skipped"
  else
    if OPENSSL35=$("$repo/scripts/fetch-openssl35.sh"); then
      export OPENSSL35
      echo "test.sh: OPENSSL35=$OPENSSL35"
    else
      summary+=("FAIL  fetch OpenSSL 3.5 (set MLDSA_ACCEL_SKIP_OPENSSL35=1 to run without it)")
      failed=1
    fi
  fi
fi
# OpenSSL 3.6 (sid) and 4.0 (experimental) for the version tests.
fetch_newer() {  # VERSION VAR
  if [ -n "${!2:-}" ]; then
    echo "test.sh: $2=${!2} (from the environment)"
  elif [ "${MLDSA_ACCEL_SKIP_OPENSSL35:-0}" = 1 ]; then
    summary+=("SKIP  OpenSSL $1 tests (skipped: MLDSA_ACCEL_SKIP_OPENSSL35=1)")
  elif path=$("$repo/scripts/fetch-openssl.sh" "$1"); then
    export "$2=$path"
    echo "test.sh: $2=$path"
  else
    summary+=("SKIP  OpenSSL $1 tests (skipped: scripts/fetch-openssl.sh $1 failed)")
  fi
}
if wanted release || wanted asan; then fetch_newer 3.6 OPENSSL36; fi
if wanted openssl40; then fetch_newer 4.0 OPENSSL40; fi

# The router, the batch queue and the GPU engine (its host threads, the
# simulated device's streams) are the multi-threaded part: their tests, built
# with -DMLDSA_ACCEL_TSAN=ON (only those targets), run under ThreadSanitizer.
tsan_stage() {
  local dir="$build_root/build-tsan" targets=()
  cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMLDSA_ACCEL_TSAN=ON -DMLDSA_ACCEL_BENCH=OFF -DMLDSA_ACCEL_CUDA=OFF || return 1
  for t in router_tests router_provider_tests router_unload_tests engine_sim_test sim_test mldsa-accel-bench \
           batch_api_test batch_async_test mldsa-accel-cli mldsa_accel_batch_testing; do
    if has_target "$dir" "$t"; then targets+=("$t"); fi
  done
  if [ ${#targets[@]} -eq 0 ]; then
    echo "skipped: no router test targets in this tree"
    return 0
  fi
  cmake --build "$dir" -j"$jobs" --target "${targets[@]}" || return 1
  # ThreadSanitizer does not support fork() in a multi-threaded process (the
  # child can hang in the runtime): the fork test runs in the other stages.
  echo "skipped under TSan: router tests with 'Forked' in their name (fork after threads is unsupported)"
  # The engine's known-answer and random-case tests add no threads of their
  # own (the release and ASan stages run them); the races are in the rest.
  echo "skipped under TSan: EngineTest.Acvp*, EngineTest.RandomCases*, EngineTest.KeyCacheHits*, EngineTest.RoundThree* (run in release and asan)"
  # The interop tests load the instrumented module into an uninstrumented openssl
  # (the TSan runtime cannot be loaded that late): the release stage runs them.
  echo "skipped under TSan: tests labelled interop (run in release)"
  # The engine suite on the cooperative kernels (engine_sim_coop_test, coop.*):
  # on the host SIMT under TSan a signing chunk outruns the engine's 20 s
  # timeout; its threads are the engine's, which engine_sim_test covers here.
  echo "skipped under TSan: the engine suite on the cooperative kernels, coop.* (run in release and asan)"
  # Composite signing through the test module (provider.sim.composite_routed)
  # needs the whole module built: its routing is router.provider.sim's.
  echo "skipped under TSan: provider.sim.composite_routed (run in release and asan)"
  run_ctest "$dir" -L 'router|gpusim' -LE interop \
    -E 'Forked|EngineTest\.(Acvp|RandomCases|KeyCacheHits|RoundThree)|^coop\.|composite_routed' --no-tests=error
}

cuda_opts=()
if [ -x /usr/local/cuda/bin/nvcc ] && [ -f "$repo/kernels/cuda.cmake" ]; then
  cuda_opts=(-DMLDSA_ACCEL_CUDA=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90)
fi
release_stage() {
  # nvdisasm for the GPU cost model's test (gpumodel.predictions; skipped without it).
  if [ ${#cuda_opts[@]} -gt 0 ] && [ -z "${NVDISASM:-}" ] && [ -x "$repo/scripts/fetch-cuda-tools.sh" ]; then
    NVDISASM=$("$repo/scripts/fetch-cuda-tools.sh") && export NVDISASM || echo "test.sh: fetch-cuda-tools.sh failed"
  fi
  configure_and_build "$build_root/build" -DCMAKE_BUILD_TYPE=Release "${cuda_opts[@]}" &&
    run_ctest "$build_root/build" -LE servers
}
# Debian 13 and 12 roots (debootstrap, cached) with the release build's .deb
# installed: real nginx, HAProxy, curl and Python on 127.0.0.1 (tests/servers/).
servers_stage() {
  local dir="$build_root/build"
  configure_and_build "$dir" -DCMAKE_BUILD_TYPE=Release "${cuda_opts[@]}" || return 1
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" --timeout "$test_timeout" \
    --output-junit "$dir/ctest-junit-servers.xml" -L servers --no-tests=error
}
# The module built against OpenSSL 4.0's headers and libcrypto.so.4 (only the
# module: the core does not use OpenSSL), checked on 4.0 (ctest -L openssl40).
openssl40_stage() {
  local dir="$build_root/build-ossl40" root
  if [ -z "${OPENSSL40:-}" ]; then
    echo "skipped: no OpenSSL 4.0 (scripts/fetch-openssl.sh 4.0 did not run or failed)"
    return 0
  fi
  root="$(dirname "$(dirname "$OPENSSL40")")/root/usr"
  [ -f "$root/include/openssl/opensslv.h" ] || { echo "no OpenSSL 4.0 headers in $root"; return 1; }
  cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DMLDSA_ACCEL_BENCH=OFF -DMLDSA_ACCEL_CUDA=OFF \
    -DOPENSSL_ROOT_DIR="$root" -DOPENSSL_INCLUDE_DIR="$root/include" \
    -DOPENSSL_CRYPTO_LIBRARY="$root/lib/x86_64-linux-gnu/libcrypto.so" \
    -DOPENSSL_SSL_LIBRARY="$root/lib/x86_64-linux-gnu/libssl.so" \
    -DCMAKE_CXX_FLAGS="-isystem $root/include/x86_64-linux-gnu" || return 1
  cmake --build "$dir" -j"$jobs" --target mldsa-accel || return 1
  run_ctest "$dir" -L openssl40 --no-tests=error
}
# Tests that run uninstrumented programs (openssl, python) which load the
# instrumented module: those need the ASan runtime preloaded, and leak reports
# from the host programs themselves are not ours (LeakSanitizer stays on for
# every other test). Of those, the module's paths through OpenSSL 3.6
# (interop36.*: the same as 3.5's) and the timing runs of `openssl speed`
# (interop.speed, interop.speed_async; interop.speed_sim stays) run in the
# release stage only.
spawning_labels='cli|interop|examples'
asan_release_only='^interop36\.|^interop\.(speed|speed_async)$'
# clang-14 at -O1: about three times faster to build than g++ with the
# sanitizers (the release stage builds with g++).
asan_stage() {
  local dir="$build_root/build-asan" rc=0 runtime
  configure_and_build "$dir" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
    -DMLDSA_ACCEL_SANITIZE=ON -DMLDSA_ACCEL_BENCH=OFF -DMLDSA_ACCEL_CUDA=OFF || return 1
  # packaging (cmake --install, cpack) and servers (the release .deb) are not the sanitizers' business.
  run_ctest "$dir" -LE "$spawning_labels|packaging|servers" || rc=1
  runtime=$(clang++-14 -print-file-name=libclang_rt.asan-x86_64.so)
  echo "skipped under ASan: tests matching $asan_release_only (run in release)"
  LD_PRELOAD="$runtime" ASAN_OPTIONS=detect_leaks=0 \
    ctest --test-dir "$dir" --output-on-failure -j"$jobs" --timeout "$test_timeout" \
    --output-junit "$dir/ctest-junit-spawning.xml" -L "$spawning_labels" -LE "packaging|servers" \
    -E "$asan_release_only" || rc=1
  return $rc
}
ct_stage() {
  local dir="$build_root/build-ct"
  cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMLDSA_ACCEL_CT_TESTING=ON -DMLDSA_ACCEL_BENCH=OFF || return 1
  # Only the constant-time test runs here: build just its program when it has one.
  if has_target "$dir" ct_check; then
    cmake --build "$dir" -j"$jobs" --target ct_check || return 1
  else
    cmake --build "$dir" -j"$jobs" || return 1
  fi
  run_ctest "$dir" -L ct --no-tests=error
}

# The clang-14 stages: libFuzzer (with ASan + UBSan) and MemorySanitizer.
clang_opts=(-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo
            -DMLDSA_ACCEL_BENCH=OFF -DMLDSA_ACCEL_CUDA=OFF)
fuzz_stage() {
  local dir="$build_root/build-fuzz"
  cmake -S "$repo" -B "$dir" "${clang_opts[@]}" -DMLDSA_ACCEL_FUZZ=ON \
    -DMLDSA_ACCEL_FUZZ_SECONDS="${MLDSA_ACCEL_FUZZ_SECONDS:-30}" || return 1
  cmake --build "$dir" -j"$jobs" --target fuzz_decoder fuzz_verify fuzz_core fuzz_params fuzz_differential fuzz_falcon || return 1
  run_ctest "$dir" -L fuzz --no-tests=error
}
msan_stage() {
  local dir="$build_root/build-msan"
  cmake -S "$repo" -B "$dir" "${clang_opts[@]}" -DMLDSA_ACCEL_MSAN=ON || return 1
  cmake --build "$dir" -j"$jobs" --target ct_check || return 1
  run_ctest "$dir" -L ct --no-tests=error
}
# The AArch64 cross build: the whole project compiles (x86 backends and CUDA
# left out); the core suite (ref and neon), the provider suite (not its
# interop tests, which need the x86 OpenSSL 3.5) and the Falcon tests run
# under qemu-aarch64.
# qemu's default CPU model ("max") has the SHA-3 extension, so neon runs its
# SHA-3 Keccak there; cortex-a72 has not, and runs the plain one.
# Without SHA-3 (cortex-a72) the plain table is the one picked: its seam
# functions against ref, whole keygen/sign/verify, Keccak and ACVP keyGen.
a72_tests='^neon\.(BackendEquivalence\.|Neon/|KeccakPermutation\.|keyGen/)'
aarch64_stage() {
  local dir="$build_root/build-aarch64" root rc=0
  "$repo/scripts/setup.sh" --aarch64 || return 1
  root=$("$repo/scripts/fetch-arm64-root.sh") || return 1
  cmake -S "$repo" -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/aarch64-linux-gnu.cmake" \
    -DMLDSA_ACCEL_ARM64_ROOT="$root" -DCMAKE_BUILD_TYPE=Release -DMLDSA_ACCEL_CUDA=OFF -DMLDSA_ACCEL_BENCH=OFF || return 1
  cmake --build "$dir" -j"$jobs" || return 1
  run_ctest "$dir" -L 'core|provider' -LE interop --no-tests=error || rc=1
  QEMU_CPU=cortex-a72 ctest --test-dir "$dir" --output-on-failure -j"$jobs" --timeout "$test_timeout" \
    --output-junit "$dir/ctest-junit-cortex-a72.xml" -L core -R "$a72_tests" --no-tests=error || rc=1
  # Falcon: its tests on the portable and NEON kernels (falcon_kat_test runs
  # each digest on both paths); the whole Falcon-1024 KAT files are left to
  # the x86 stages (about 4 min each under qemu), the 512 ones take one.
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" --timeout "$test_timeout" \
    --output-junit "$dir/ctest-junit-falcon.xml" -L falcon -LE 'cli|interop' \
    -E 'AllEntriesDigest/Falcon_(padded_)?1024' --no-tests=error || rc=1
  return $rc
}

if wanted release; then
  if [ ${#cuda_opts[@]} -gt 0 ]; then
    run_stage "release build (with CUDA for sm_90) + ctest" release_stage
  else
    run_stage "release build + ctest" release_stage
    summary+=("SKIP  CUDA compile (skipped: no /usr/local/cuda/bin/nvcc or no kernels/cuda.cmake)")
  fi
fi
wanted asan && run_stage "ASan+UBSan build + ctest" asan_stage
wanted ct && run_stage "valgrind constant-time check" ct_stage
wanted tsan && run_stage "ThreadSanitizer router check" tsan_stage
wanted servers && run_stage "servers: nginx, HAProxy, curl, Python on Debian 13 and 12 roots" servers_stage
wanted openssl40 && run_stage "OpenSSL 4.0 build + checks" openssl40_stage
if wanted fuzz || wanted msan; then
  if command -v clang++-14 >/dev/null 2>&1; then
    wanted fuzz && run_stage "libFuzzer (ASan + UBSan) runs" fuzz_stage
    wanted msan && run_stage "MemorySanitizer constant-time check" msan_stage
  else
    summary+=("SKIP  fuzz and MemorySanitizer stages (skipped: no clang++-14)")
  fi
fi
wanted aarch64 && run_stage "AArch64 cross build + core suite under qemu (ref, neon)" aarch64_stage

echo
echo "=================== summary ($((SECONDS - t_all)) s)"
printf '%s\n' "${summary[@]}"
# One closing count over every ctest run above.
python3 - "$build_root" <<'PY'
import glob, os, sys
import xml.etree.ElementTree as ET
passed = failed = skipped = 0
paths = []
for d in ("build", "build-asan", "build-ct", "build-tsan", "build-ossl40", "build-fuzz", "build-msan", "build-aarch64"):
    paths += sorted(glob.glob(os.path.join(sys.argv[1], d, "ctest-junit*.xml")))
for path in paths:
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status")
        if status == "run":
            passed += 1
        elif status == "fail":
            failed += 1
        else:
            skipped += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit $failed
