#!/usr/bin/env bash
# setup.sh - make sure the Debian 12 packages this project needs are installed.
#
# As root, installs the missing ones with apt-get (running apt-get update
# first). Otherwise prints the missing ones and the command to install them,
# and exits 1. Run by test.sh and .ci/run (everything the tests need).
#
# setup.sh --demo: only what scripts/demo.sh builds and runs (no sanitizer,
# fuzzing, valgrind, benchmark or packaging tools).
# setup.sh --aarch64: the host tools of test.sh's aarch64 stage instead (the
# cross compiler and qemu-user; the arm64 libraries come from
# scripts/fetch-arm64-root.sh, without root and without touching dpkg).
set -euo pipefail

# The demo's: build-essential/cmake/pkg-config: the build. libssl-dev/openssl:
# OpenSSL 3.0 headers and the CLI the provider is tested with. libgtest-dev:
# ctest suites. python3: vector helpers, the tests' configure step.
# ca-certificates, debian-archive-keyring: apt downloads of the OpenSSL 3.5
# packages (scripts/fetch-openssl35.sh).
demo_packages=(
  build-essential cmake pkg-config libssl-dev openssl libgtest-dev python3
  ca-certificates debian-archive-keyring
)
# The tests' on top: libgmock-dev: ctest suites. libbenchmark-dev: bench/.
# valgrind: the constant-time test. clang-14, libclang-rt-14-dev: the
# libFuzzer and MemorySanitizer stages. lintian: the package check.
packages=(
  "${demo_packages[@]}"
  libgmock-dev libbenchmark-dev valgrind clang-14 libclang-rt-14-dev lintian
)
case "${1:-}" in
  --demo) packages=("${demo_packages[@]}") ;;
  --aarch64) packages=(g++-aarch64-linux-gnu qemu-user ca-certificates debian-archive-keyring) ;;
  "") ;;
  *) echo "setup: unknown argument: $1" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all required Debian packages are installed"
  exit 0
fi

echo "setup: missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: not root; install them with:"
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}"
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
[ "${MLDSA_ACCEL_APT_UPDATED:-0}" = 1 ] || apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: installed ${missing[*]}"
