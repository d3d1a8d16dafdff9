#!/usr/bin/env bash
# fetch-openssl.sh - get a newer OpenSSL (3.5, 3.6 or 4.0) on Debian 12, from
# Debian's own packages, without touching the system.
#
# Debian 12 ships OpenSSL 3.0. The interop and version tests need newer ones:
#   3.5  Debian 13 (trixie)
#   3.6  Debian unstable (sid)
#   4.0  Debian experimental (its libc6, libzstd1 and zlib1g from sid); with
#        libssl-dev too, whose headers build a module for libcrypto.so.4
# The script downloads those packages with apt-get against a private sources
# list and state directory (the system's apt setup is left untouched), unpacks
# them with dpkg -x, and writes a wrapper that runs that openssl through its
# own dynamic loader (its libcrypto needs a newer glibc than Debian 12's).
#
# Usage: scripts/fetch-openssl.sh VERSION [--dir DIR] [--refresh]
#   VERSION is 3.5, 3.6 or 4.0. DIR defaults to $MLDSA_ACCEL_OPENSSL<NN>_DIR
#   (NN = 35, 36, 40), else ${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/openssl<NN>.
#   A cache that already holds a working wrapper of that version is reused;
#   --refresh downloads again. Prints the wrapper's path (DIR/bin/openssl<NN>)
#   on stdout; progress goes to stderr. The unpacked tree is DIR/root. Needs
#   network access to the Debian mirror the system already uses, but not root.
set -euo pipefail

version=""
dir=""
refresh=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --refresh) refresh=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    -*) echo "fetch-openssl: unknown argument: $1" >&2; exit 2 ;;
    *) [ -z "$version" ] || { echo "fetch-openssl: one VERSION only" >&2; exit 2; }; version="$1"; shift ;;
  esac
done

# Per version: suites in the private sources list, the release apt prefers,
# and the packages to unpack.
case "$version" in
  3.5) suites=(trixie); target=trixie; packages=(openssl libssl3t64 libc6 libzstd1 zlib1g) ;;
  3.6) suites=(sid); target=sid; packages=(openssl libssl3t64 libc6 libzstd1 zlib1g) ;;
  4.0) suites=(sid experimental); target=experimental
       packages=(openssl/experimental libssl4/experimental libssl-dev/experimental libc6/sid libzstd1/sid zlib1g/sid) ;;
  *) echo "fetch-openssl: VERSION must be 3.5, 3.6 or 4.0 (got '${version}')" >&2; exit 2 ;;
esac
nn=${version/./}
name="openssl$nn"
say() { echo "fetch-openssl $version: $*" >&2; }
die() { say "error: $*"; exit 1; }

if [ -z "$dir" ]; then
  dir_var="MLDSA_ACCEL_OPENSSL${nn}_DIR"
  dir="${!dir_var:-${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/$name}"
fi
wrapper="$dir/bin/$name"

# True when the wrapper runs and reports the requested major.minor.
wrapper_ok() {
  [ -x "$wrapper" ] || return 1
  local v
  v=$("$wrapper" version 2>/dev/null) || return 1
  [[ "$v" == "OpenSSL $version."* ]]
}

# The Debian mirror this system already uses (a *.list "deb" line or a
# deb822 *.sources "URIs:" field whose path ends in /debian, not the security one).
debian_mirror() {
  local f line url
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    while IFS= read -r line; do
      line="${line%%#*}"
      case "$line" in
        deb\ *) url=$(awk '{for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit }}' <<<"$line") ;;
        URIs:*) url=$(awk '{print $2}' <<<"$line") ;;
        *) continue ;;
      esac
      url="${url%/}"
      if [[ "$url" == */debian ]]; then echo "$url"; return 0; fi
    done <"$f"
  done
  return 1
}

mkdir -p "$dir"
# One fetch at a time per cache (parallel test runs may call this together).
exec 9>"$dir/.lock"
command -v flock >/dev/null && flock 9

if [ "$refresh" = 0 ] && wrapper_ok; then
  say "using cached $("$wrapper" version)"
  echo "$wrapper"
  exit 0
fi

for tool in apt-get dpkg; do
  command -v "$tool" >/dev/null || die "$tool not found (this script needs Debian's apt and dpkg)"
done
mirror="${MLDSA_ACCEL_DEBIAN_MIRROR:-$(debian_mirror || true)}"
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list*; set MLDSA_ACCEL_DEBIAN_MIRROR"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring missing (install debian-archive-keyring)"

apt_dir="$dir/apt"
mkdir -p "$apt_dir/etc" "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$dir/debs"
for s in "${suites[@]}"; do echo "deb [signed-by=$keyring] $mirror $s main"; done >"$apt_dir/etc/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::Etc::Preferences=/dev/null"
  -o "Dir::Etc::PreferencesParts=/dev/null"
  -o "Dir::State=$apt_dir/state"
  -o "Dir::State::status=/dev/null"
  -o "Dir::Cache=$apt_dir/cache"
  -o "APT::Architecture=amd64"
  -o "APT::Default-Release=$target"
  -o "APT::Sandbox::User=$(id -un)"
  -o "Debug::NoLocking=1"
)

say "updating the private package list from $mirror (${suites[*]})"
apt-get "${apt_opts[@]}" -q update >&2 || die "apt-get update of the ${suites[*]} lists failed"

say "downloading ${packages[*]}"
rm -f "$dir/debs/"*.deb
(cd "$dir/debs" && apt-get "${apt_opts[@]}" -q download "${packages[@]}") >&2 \
  || die "apt-get download failed"

# Unpack into a fresh folder, then swap it in, so a failed run never leaves a
# half-written root behind a working-looking wrapper.
root="$dir/root"
rm -rf "$root.new"
mkdir -p "$root.new"
for deb in "$dir/debs/"*.deb; do
  dpkg -x "$deb" "$root.new"
done
rm -rf "$root"
mv "$root.new" "$root"

# Debian 13 and later are merged-/usr: the loader lives in usr/lib64 (lib64 on older layouts).
loader=""
for cand in "$root/usr/lib64/ld-linux-x86-64.so.2" "$root/lib64/ld-linux-x86-64.so.2"; do
  if [ -e "$cand" ]; then loader="$cand"; break; fi
done
[ -n "$loader" ] || die "no ld-linux-x86-64.so.2 in the unpacked libc6"
[ -x "$root/usr/bin/openssl" ] || die "no usr/bin/openssl in the unpacked openssl package"

mkdir -p "$dir/bin"
cat >"$wrapper.new" <<WRAP
#!/bin/sh
# OpenSSL $version from Debian, run with its own loader and libraries (written by
# scripts/fetch-openssl.sh). OPENSSL_CONF / OPENSSL_MODULES already set by
# the caller win, so tests can point it at their own config and provider folder.
root='$root'
export OPENSSL_CONF="\${OPENSSL_CONF:-\$root/etc/ssl/openssl.cnf}"
export OPENSSL_MODULES="\${OPENSSL_MODULES:-\$root/usr/lib/x86_64-linux-gnu/ossl-modules}"
exec '$loader' --library-path "\$root/usr/lib/x86_64-linux-gnu:\$root/lib/x86_64-linux-gnu" "\$root/usr/bin/openssl" "\$@"
WRAP
chmod +x "$wrapper.new"
mv "$wrapper.new" "$wrapper"

wrapper_ok || die "the unpacked openssl does not run or is not $version: $("$wrapper" version 2>&1 | head -3)"
say "ready: $("$wrapper" version)"
echo "$wrapper"
