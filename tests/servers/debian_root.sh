#!/usr/bin/env bash
# debian_root.sh SUITE DEB|BUILD_DIR - a Debian root (bookworm = 12, trixie = 13) with
# real servers and clients, and this project's .deb installed in it the way
# docs/USAGE.md says: `dpkg -i`, then `.include /usr/share/mldsa-accel/system-wide.cnf`
# and `.include /usr/share/mldsa-accel/prefer-mldsa-accel.cnf` appended to its
# /etc/ssl/openssl.cnf. The -dbgsym package beside the .deb is installed too:
# servers.sh counts the provider's signatures with a gdb breakpoint, which
# needs the symbols the package strips.
#
# The root is made once with `debootstrap --variant=minbase` into
# ${MLDSA_ACCEL_ROOTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/roots}/SUITE
# (Debian packages only, from the mirror this system uses) and reused; each
# run reinstalls DEB and rewrites openssl.cnf from the copy saved at creation.
# Given a build folder, the package is made there first (cpack -G DEB into
# BUILD_DIR/servers-pkg-SUITE). A stamp, .mldsa-accel-ready, tells servers.sh the
# root holds this run's package. Needs root (debootstrap, chroot) and installs debootstrap and gdb on the
# host when missing. Exit 77 ("skipped: ...") without root or without the
# mirror; prints the root's path last on success.
set -euo pipefail
suite=$1 deb=$2
say() { echo "debian_root $suite: $*" >&2; }
skip() { echo "skipped: $*"; exit 77; }
die() { say "error: $*"; exit 1; }

case "$suite" in
  bookworm|trixie) ;;
  *) die "SUITE must be bookworm or trixie" ;;
esac
roots=${MLDSA_ACCEL_ROOTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/roots}
root="$roots/$suite"
rm -f "$root/.mldsa-accel-ready"
[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap and chroot)"
if [ -d "$deb" ]; then
  # One cpack at a time in a build folder (it runs the build's preinstall step).
  exec 7>"$deb/.servers-cpack.lock"
  flock 7
  rm -rf "$deb/servers-pkg-$suite"
  cpack -G DEB --config "$deb/CPackConfig.cmake" -B "$deb/servers-pkg-$suite" >&2 || die "cpack -G DEB in $deb failed"
  flock -u 7
  deb=$(ls "$deb/servers-pkg-$suite"/mldsa-accel_*.deb)
fi
[ -f "$deb" ] || die "no package $deb"
dbgsym=$(ls "$(dirname "$deb")"/mldsa-accel-dbgsym_*.ddeb 2>/dev/null | head -1)
[ -f "$dbgsym" ] || die "no mldsa-accel-dbgsym_*.ddeb beside $deb"
# What the server checks run: servers, clients, and openssl to make certificates.
packages=nginx,haproxy,curl,python3,openssl

mkdir -p "$roots"
host_tools=()
# One apt-get at a time: the two suites' setups run side by side.
exec 8>"$roots/.host-tools.lock"
flock 8
command -v debootstrap >/dev/null || host_tools+=(debootstrap)
command -v gdb >/dev/null || host_tools+=(gdb)
if [ ${#host_tools[@]} -gt 0 ]; then
  say "installing ${host_tools[*]} on the host"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${host_tools[@]}" >&2 \
    || skip "cannot install ${host_tools[*]} (no Debian mirror?)"
fi
flock -u 8

# The Debian mirror this system already uses (as scripts/fetch-openssl.sh finds it).
mirror=${MLDSA_ACCEL_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    mirror=$(sed -n -e 's/#.*//' -e 's/^deb \(\[[^]]*\] \)\{0,1\}\([a-z]*:\/\/[^ ]*\/debian\)\/\{0,1\} .*/\2/p' \
                    -e 's/^URIs: *\([^ ]*\/debian\)\/\{0,1\} *$/\1/p' "$f" | head -1)
    [ -n "$mirror" ] && break
  done
fi
[ -n "$mirror" ] || skip "no Debian mirror in /etc/apt/sources.list*; set MLDSA_ACCEL_DEBIAN_MIRROR"

mkdir -p "$roots"
exec 9>"$roots/.$suite.lock"
flock 9
if [ ! -f "$root/.mldsa-accel-root" ] || [ "$(cat "$root/.mldsa-accel-root")" != "$packages" ]; then
  say "debootstrap --variant=minbase --include=$packages $suite from $mirror (once; cached in $root)"
  rm -rf "$root.new"
  t0=$SECONDS
  if ! debootstrap --variant=minbase --include="$packages" "$suite" "$root.new" "$mirror" >"$roots/$suite.log" 2>&1; then
    tail -5 "$roots/$suite.log" >&2
    rm -rf "$root.new"
    skip "debootstrap $suite failed (mirror unreachable?); log: $roots/$suite.log"
  fi
  cp "$root.new/etc/ssl/openssl.cnf" "$root.new/etc/ssl/openssl.cnf.debian"
  echo "$packages" >"$root.new/.mldsa-accel-root"
  rm -rf "$root"
  mv "$root.new" "$root"
  say "root made in $((SECONDS - t0)) s"
fi

# Install the package as a user would, and enable and prefer it system-wide as
# docs/USAGE.md says (servers.sh's controls leave the second line out).
cp "$deb" "$root/tmp/mldsa-accel.deb"
cp "$dbgsym" "$root/tmp/mldsa-accel-dbgsym.ddeb"
chroot "$root" dpkg -i /tmp/mldsa-accel.deb /tmp/mldsa-accel-dbgsym.ddeb >&2 ||
  die "dpkg -i of $(basename "$deb") and $(basename "$dbgsym") failed in $suite"
rm -f "$root/tmp/mldsa-accel.deb" "$root/tmp/mldsa-accel-dbgsym.ddeb"
cp "$root/etc/ssl/openssl.cnf.debian" "$root/etc/ssl/openssl.cnf"
{ echo ".include /usr/share/mldsa-accel/system-wide.cnf"
  echo ".include /usr/share/mldsa-accel/prefer-mldsa-accel.cnf"; } >>"$root/etc/ssl/openssl.cnf"
chroot "$root" openssl list -providers | grep -A3 mldsa-accel | grep -q 'status: active' \
  || die "mldsa-accel not active in $suite's openssl after the install"
say "$(chroot "$root" dpkg-query -W -f='${Package} ${Version}' mldsa-accel) installed, enabled in /etc/ssl/openssl.cnf"
basename "$deb" >"$root/.mldsa-accel-ready"
echo "$root"
