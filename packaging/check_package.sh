#!/bin/sh
# check_package.sh install|deb BUILD_DIR OPENSSL MULTIARCH - the install rules and the .deb.
#   install  `cmake --install BUILD_DIR --prefix TMP`: the module, docs, examples
#            and .pc land in their places, and the installed application.cnf
#            loads the installed module (OPENSSL_MODULES = the installed MODULESDIR).
#   deb      `cpack -G DEB`: package name, version, Depends from dpkg-shlibdeps
#            (libc6, libssl3), the module in /usr/lib/MULTIARCH/ossl-modules,
#            the snippet in /usr/share/mldsa-accel; unpacked with dpkg -x, the
#            system's own openssl.cnf plus `.include` of that snippet loads it.
# Neither needs root: nothing is written outside a temporary folder.
set -eu
what=$1 build=$2 openssl=$3 multiarch=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
if [ ! -x "$openssl" ]; then
  echo "skipped: no openssl command line found"
  exit 77
fi

# Generates an ML-DSA-65 key, signs and verifies with it, under config $1 and module folder $2.
sign_with() {
  OPENSSL_CONF=$1 OPENSSL_MODULES=$2 "$openssl" genpkey -algorithm ML-DSA-65 -out "$work/key.pem" &&
    echo msg >"$work/msg" &&
    OPENSSL_CONF=$1 OPENSSL_MODULES=$2 "$openssl" pkeyutl -sign -rawin -inkey "$work/key.pem" -in "$work/msg" -out "$work/sig" &&
    OPENSSL_CONF=$1 OPENSSL_MODULES=$2 "$openssl" pkeyutl -verify -rawin -inkey "$work/key.pem" -in "$work/msg" -sigfile "$work/sig"
}

case "$what" in
install)
  prefix="$work/prefix"
  cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
  module=$(find "$prefix" -name mldsa-accel.so)
  [ -n "$module" ] || fail "no mldsa-accel.so under the prefix"
  moddir=$(dirname "$module")
  case "$moddir" in
    */ossl-modules) ok "module installed to ${moddir#"$prefix"/}" ;;
    *) fail "module not in an ossl-modules folder: $moddir" ;;
  esac
  for f in share/doc/mldsa-accel/README.md share/doc/mldsa-accel/LICENSE share/doc/mldsa-accel/copyright \
           share/doc/mldsa-accel/examples/application.cnf share/doc/mldsa-accel/examples/tls-server.cnf \
           share/doc/mldsa-accel/examples/system-wide.cnf share/mldsa-accel/system-wide.cnf; do
    [ -f "$prefix/$f" ] || fail "missing $f"
  done
  ok "README, LICENSE, copyright, examples and the system-wide snippet installed"
  pc=$(find "$prefix" -name mldsa-accel.pc)
  [ -n "$pc" ] || fail "no mldsa-accel.pc"
  got=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=module mldsa-accel)
  [ "$got" = "$module" ] || fail "pkg-config --variable=module says $got, not $module"
  ok "pkg-config --variable=module mldsa-accel = the installed module"
  sign_with "$prefix/share/doc/mldsa-accel/examples/application.cnf" "$moddir" >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "the installed application.cnf does not load the installed module"; }
  ok "installed application.cnf + installed module: genpkey, sign, verify"
  ;;
deb)
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack -G DEB"; }
  deb=$(find "$work/pkg" -maxdepth 1 -name 'mldsa-accel_*.deb')
  [ -n "$deb" ] || fail "cpack wrote no mldsa-accel_*.deb"
  ok "cpack -G DEB wrote $(basename "$deb")"
  [ "$(dpkg-deb -f "$deb" Package)" = mldsa-accel ] || fail "package name"
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "  Depends: $depends"
  for d in libc6 libssl3; do
    echo "$depends" | grep -Eq "(^|, )$d( |,|$)" || fail "Depends lacks $d (dpkg-shlibdeps did not run?)"
  done
  ok "Depends computed by dpkg-shlibdeps (libc6, libssl3)"
  dpkg-deb -c "$deb" >"$work/contents"
  grep -q " ./usr/lib/$multiarch/ossl-modules/mldsa-accel.so\$" "$work/contents" ||
    { cat "$work/contents"; fail "module not at /usr/lib/$multiarch/ossl-modules"; }
  grep -q " ./usr/share/mldsa-accel/system-wide.cnf\$" "$work/contents" || fail "no /usr/share/mldsa-accel/system-wide.cnf"
  grep -q " ./usr/share/doc/mldsa-accel/copyright\$" "$work/contents" || fail "no /usr/share/doc/mldsa-accel/copyright"
  ok "module in /usr/lib/$multiarch/ossl-modules, snippet in /usr/share/mldsa-accel, copyright in the doc folder"
  dpkg -x "$deb" "$work/root"
  for marker in "injected fault" "sim device" "cpu-test"; do
    ! grep -a -q -- "$marker" "$work/root/usr/lib/$multiarch/ossl-modules/mldsa-accel.so" ||
      fail "the packaged module contains test machinery ('$marker')"
  done
  ok "the packaged module has no test machinery (simulated device, faults, test executor)"
  system=$("$openssl" version -d | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')/openssl.cnf
  [ -r "$system" ] || fail "cannot read the system's $system"
  { cat "$system"; echo ".include $work/root/usr/share/mldsa-accel/system-wide.cnf"; } >"$work/system.cnf"
  sign_with "$work/system.cnf" "$work/root/usr/lib/$multiarch/ossl-modules" >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "$system + the packaged snippet does not load the packaged module"; }
  ok "$system + .include of the packaged snippet + the packaged module: genpkey, sign, verify"
  ;;
*) fail "unknown check $what" ;;
esac
