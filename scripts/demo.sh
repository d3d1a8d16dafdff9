#!/usr/bin/env bash
# demo.sh - the main job: set up, build (Release), and show mldsa-accel at work.
#
#   1. installs missing Debian packages (as root; otherwise lists them)
#   2. configures and builds into build/ (or $MLDSA_ACCEL_BUILD_ROOT/build)
#   3. the core's self-test (the known-answer ctest suites) and speed table
#   4. the provider on the system's OpenSSL 3.0 CLI: an ML-DSA-65 key, a file
#      signed and verified with a context string, a self-signed certificate
#      issued and verified - printing every openssl command it runs
#   5. signing throughput: the provider through EVP next to the core
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MLDSA_ACCEL_BUILD_ROOT:-$repo}/build
jobs=${MLDSA_ACCEL_JOBS:-$(nproc)}

step() { echo; echo "=== $*"; }

step "1. Debian packages"
"$repo/scripts/setup.sh"

step "2. Build (Release) in $build"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs"

step "3. Core self-test (ctest -L core: NIST ACVP vectors, round trips, bad inputs)"
ctest --test-dir "$build" -L core -j"$jobs" --output-on-failure --no-tests=error

# The benchmark rows matching $1, as a Markdown table (median of repetitions).
speed_table() {
  local json="$build/demo-bench.json"
  "$build/bench/bench_core" --benchmark_filter="$1" --benchmark_min_time=0.05 \
    --benchmark_out="$json" --benchmark_out_format=json --benchmark_format=console >/dev/null
  python3 "$repo/bench/results_table.py" "$json"
}

step "3b. Core speed (backend: ${MLDSA_ACCEL_CPU:-auto}; cached keys, 32-byte messages)"
speed_table '^(keygen|sign_cached|verify_cached)/'

module=$(find "$build" -name 'mldsa-accel.so' -print -quit 2>/dev/null || true)
if [ -z "$module" ]; then
  step "4. Provider demo skipped: the mldsa-accel module is not part of this build yet"
  exit 0
fi
moddir=$(dirname "$module")

step "4. The provider on the system OpenSSL ($(openssl version))"
work="$build/demo"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
prov=(-provider-path "$moddir" -provider mldsa-accel -provider default)
run() { echo "\$ $*"; "$@"; }

run openssl list -signature-algorithms "${prov[@]}"
run openssl genpkey "${prov[@]}" -algorithm ML-DSA-65 -out key.pem
run openssl pkey "${prov[@]}" -in key.pem -pubout -out pub.pem
run openssl pkey "${prov[@]}" -pubin -in pub.pem -noout -text | head -4
echo "mldsa-accel demo: sign me" >message.txt
run openssl pkeyutl -sign "${prov[@]}" -rawin -inkey key.pem -in message.txt -out message.sig \
  -pkeyopt context-string:demo
echo "signature: $(wc -c <message.sig) bytes"
run openssl pkeyutl -verify "${prov[@]}" -rawin -pubin -inkey pub.pem -in message.txt \
  -sigfile message.sig -pkeyopt context-string:demo
echo "(a wrong context string must fail:)"
if openssl pkeyutl -verify "${prov[@]}" -rawin -pubin -inkey pub.pem -in message.txt \
    -sigfile message.sig -pkeyopt context-string:other >/dev/null 2>&1; then
  echo "ERROR: verification with the wrong context string succeeded" >&2
  exit 1
fi
echo "Signature Verification Failure (as expected)"
run openssl req "${prov[@]}" -x509 -new -key key.pem -subj "/CN=mldsa-accel demo" -days 30 -out cert.pem
run openssl x509 "${prov[@]}" -in cert.pem -noout -subject -issuer -ext subjectKeyIdentifier
openssl x509 "${prov[@]}" -in cert.pem -noout -text | grep -m1 'Signature Algorithm'
run openssl verify "${prov[@]}" -CAfile cert.pem cert.pem

step "5. Signing throughput: EVP_DigestSign through the provider vs the core"
speed_table '^(sign_cached|evp_digestsign)/'
