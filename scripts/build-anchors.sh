#!/bin/bash
# Builds the public ML-DSA implementations that bench_paired measures against
# (issue 17) from source trees you already have; it downloads nothing.
#
#   scripts/build-anchors.sh --out DIR [--liboqs SRC] [--pqcrystals SRC]
#
# --liboqs SRC      a liboqs checkout (0.16 or later): two shared builds with
#                   ML-DSA and Falcon only, DIR/liboqs/lib/liboqs.so (the default build:
#                   run-time dispatch, AVX-512VL Keccak where the CPU has it) and
#                   DIR/liboqs-avx2/lib/liboqs.so (OQS_USE_AVX512_INSTRUCTIONS=OFF and
#                   OQS_USE_SHA3_AVX512VL=OFF: the distributable build turns the
#                   latter on by itself, and the former leaves it on).
# --pqcrystals SRC  a pq-crystals/dilithium checkout (master: FIPS 204 ML-DSA):
#                   its avx2 code as one self-contained library per parameter
#                   set, DIR/pqcrystals/libpqcrystals_dilithium{2,3,5}_avx2.so,
#                   built with the flags of its own Makefile.
#
# Then: bench_paired --anchors DIR (or MLDSA_ACCEL_ANCHORS=DIR).
set -euo pipefail

out="" liboqs="" pqc=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --liboqs) liboqs=$2; shift 2 ;;
    --pqcrystals) pqc=$2; shift 2 ;;
    *) echo "usage: $0 --out DIR [--liboqs SRC] [--pqcrystals SRC]" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "$0: --out DIR is required" >&2; exit 2; }
[ -n "$liboqs$pqc" ] || { echo "$0: give --liboqs and/or --pqcrystals" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
jobs=$(nproc)
# What bench_paired measures: ML-DSA (issue 17) and round-3 Falcon (issue 35).
algs="SIG_ml_dsa_44;SIG_ml_dsa_65;SIG_ml_dsa_87;SIG_falcon_512;SIG_falcon_1024;SIG_falcon_padded_512;SIG_falcon_padded_1024"

if [ -n "$liboqs" ]; then
  for variant in liboqs liboqs-avx2; do
    extra=()
    [ "$variant" = liboqs-avx2 ] && extra=(-DOQS_USE_AVX512_INSTRUCTIONS=OFF -DOQS_USE_SHA3_AVX512VL=OFF)
    cmake -S "$liboqs" -B "$out/build-$variant" -GNinja -DCMAKE_BUILD_TYPE=Release \
      -DBUILD_SHARED_LIBS=ON -DOQS_BUILD_ONLY_LIB=ON -DOQS_USE_OPENSSL=OFF \
      -DOQS_MINIMAL_BUILD="$algs" \
      -DCMAKE_INSTALL_PREFIX="$out/$variant" "${extra[@]}" >/dev/null
    cmake --build "$out/build-$variant" -j"$jobs" >/dev/null
    cmake --install "$out/build-$variant" >/dev/null
    git -C "$liboqs" describe --tags --always >"$out/$variant/VERSION" 2>/dev/null || true
    echo "built $out/$variant/lib/liboqs.so"
  done
fi

if [ -n "$pqc" ]; then
  src="$pqc/avx2"
  dst="$out/pqcrystals"
  mkdir -p "$dst"
  cflags=(-O3 -march=native -mtune=native -mavx2 -mpopcnt -fPIC -shared)
  for mode in 2 3 5; do
    ${CC:-cc} "${cflags[@]}" -DDILITHIUM_MODE=$mode -I"$src" \
      -o "$dst/libpqcrystals_dilithium${mode}_avx2.so" \
      "$src"/sign.c "$src"/packing.c "$src"/polyvec.c "$src"/poly.c "$src"/ntt.S \
      "$src"/invntt.S "$src"/pointwise.S "$src"/shuffle.S "$src"/consts.c \
      "$src"/rejsample.c "$src"/rounding.c "$src"/symmetric-shake.c "$src"/fips202.c \
      "$src"/fips202x4.c "$src"/f1600x4.S "$src"/randombytes.c
    echo "built $dst/libpqcrystals_dilithium${mode}_avx2.so"
  done
  git -C "$pqc" rev-parse --short HEAD >"$dst/VERSION" 2>/dev/null || true
fi
