#!/usr/bin/env bash
# fetch-arm64-root.sh - the arm64 libraries of the AArch64 cross build.
#
# Downloads Debian 12's arm64 builds of OpenSSL (libssl-dev, libssl3),
# GoogleTest (libgtest-dev) and Google Benchmark (libbenchmark-dev,
# libbenchmark1debian) with apt-get against the system's own sources but a private
# state and cache folder with APT::Architecture=arm64, and unpacks them with
# dpkg -x into a private root. dpkg's package database and architecture list
# are never touched, so nothing of the x86 setup can change (Debian multiarch,
# dpkg --add-architecture arm64, would have to hold the arm64 and amd64
# copies of OpenSSL at one version, upgrading the x86 one when the archive
# has moved on). cmake/aarch64-linux-gnu.cmake builds against the root.
#
# Usage: scripts/fetch-arm64-root.sh [--dir DIR] [--refresh]
#   DIR defaults to $MLDSA_ACCEL_ARM64_ROOT_DIR, else
#   ${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/arm64. A root that already has
#   every package is reused; --refresh downloads again. Prints the root's path
#   (DIR/root) on stdout; progress goes to stderr. Needs the Debian mirror the
#   system uses, but not root.
set -euo pipefail

dir="${MLDSA_ACCEL_ARM64_ROOT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/arm64}"
refresh=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --refresh) refresh=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) echo "fetch-arm64-root: unknown argument: $1" >&2; exit 2 ;;
  esac
done

say() { echo "fetch-arm64-root: $*" >&2; }
die() { say "error: $*"; exit 1; }

packages=(libssl-dev libssl3 libgtest-dev libbenchmark-dev libbenchmark1debian)
root="$dir/root"
stamp="$root/.packages"

mkdir -p "$dir"
exec 9>"$dir/.lock"  # one fetch at a time per folder
command -v flock >/dev/null && flock 9

if [ "$refresh" = 0 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${packages[*]}" ]; then
  say "using $root"
  echo "$root"
  exit 0
fi
for tool in apt-get dpkg; do
  command -v "$tool" >/dev/null || die "$tool not found (this script needs Debian's apt and dpkg)"
done

apt_dir="$dir/apt"
mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$dir/debs"
apt_opts=(
  -o "Dir::State=$apt_dir/state"
  -o "Dir::State::status=/dev/null"
  -o "Dir::Cache=$apt_dir/cache"
  -o "APT::Architecture=arm64"
  -o "APT::Architectures=arm64"
  -o "APT::Sandbox::User=$(id -un)"
  -o "Debug::NoLocking=1"
)
say "updating a private arm64 package list from the system's sources"
apt-get "${apt_opts[@]}" -q update >&2 || die "apt-get update (arm64, private state) failed"
say "downloading ${packages[*]}"
rm -f "$dir/debs/"*.deb
(cd "$dir/debs" && apt-get "${apt_opts[@]}" -q download "${packages[@]}") >&2 || die "apt-get download failed"

# Unpack into a fresh folder, then swap it in: a failed run leaves no half root.
rm -rf "$root.new"
mkdir -p "$root.new"
for deb in "$dir/debs/"*.deb; do
  dpkg -x "$deb" "$root.new"
done
for f in usr/include/openssl/ssl.h usr/include/aarch64-linux-gnu/openssl/opensslconf.h \
  usr/lib/aarch64-linux-gnu/libcrypto.so usr/lib/aarch64-linux-gnu/libgtest.a \
  usr/lib/aarch64-linux-gnu/libbenchmark.so; do
  [ -e "$root.new/$f" ] || die "$f missing from the unpacked packages"
done
echo "${packages[*]}" >"$root.new/.packages"
rm -rf "$root"
mv "$root.new" "$root"
say "unpacked into $root"
echo "$root"
