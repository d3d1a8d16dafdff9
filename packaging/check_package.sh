#!/bin/sh
# check_package.sh install|deb BUILD_DIR OPENSSL MULTIARCH PACKAGE - the install rules and the .deb.
#   install  `cmake --install BUILD_DIR --prefix TMP`: the module, docs, changelog,
#            manual page, examples and .pc land in their places, and the installed
#            application.cnf loads the installed module (OPENSSL_MODULES = the
#            installed MODULESDIR).
#   deb      `cpack -G DEB`: package name, version, Depends from dpkg-shlibdeps
#            (libc6, libssl3), the module in /usr/lib/MULTIARCH/ossl-modules,
#            stripped, its debug symbols in PACKAGE-dbgsym, no CUDA runtime in
#            mldsa-accel (the CPU-only package); the snippets in
#            /usr/share/mldsa-accel; unpacked with dpkg -x, the system's own
#            openssl.cnf plus `.include` of that snippet loads it; and
#            `lintian --pedantic` prints no E: or W: line for either package
#            (where lintian is installed, as scripts/setup.sh does).
# Neither needs root: nothing is written outside a temporary folder.
set -eu
what=$1 build=$2 openssl=$3 multiarch=$4 package=$5
doc=share/doc/$package
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
  for f in $doc/README.md $doc/copyright $doc/changelog.gz $doc/SECURITY.md $doc/docs/CONFIGURE.md \
           $doc/examples/application.cnf $doc/examples/tls-server.cnf $doc/examples/system-wide.cnf \
           $doc/examples/prefer-mldsa-accel.cnf share/mldsa-accel/system-wide.cnf \
           share/mldsa-accel/prefer-mldsa-accel.cnf share/man/man7/mldsa-accel.7.gz; do
    [ -f "$prefix/$f" ] || fail "missing $f"
  done
  ok "README, SECURITY, docs, copyright, changelog, manual page, examples and the snippets installed"
  pc=$(find "$prefix" -name mldsa-accel.pc)
  [ -n "$pc" ] || fail "no mldsa-accel.pc"
  got=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=module mldsa-accel)
  [ "$got" = "$module" ] || fail "pkg-config --variable=module says $got, not $module"
  ok "pkg-config --variable=module mldsa-accel = the installed module"
  version=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --modversion mldsa-accel)
  head=$(gzip -dc "$prefix/$doc/changelog.gz" | head -1)
  [ "$head" = "$package ($version) unstable; urgency=medium" ] || fail "changelog.gz opens with '$head', not $version's entry"
  ok "changelog.gz opens with $version's entry"
  sign_with "$prefix/share/doc/mldsa-accel/examples/application.cnf" "$moddir" >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "the installed application.cnf does not load the installed module"; }
  ok "installed application.cnf + installed module: genpkey, sign, verify"
  ;;
deb)
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack -G DEB"; }
  deb=$(find "$work/pkg" -maxdepth 1 -name "${package}_*.deb")
  [ -n "$deb" ] || fail "cpack wrote no ${package}_*.deb"
  dbgsym=$(find "$work/pkg" -maxdepth 1 -name "${package}-dbgsym_*.ddeb")
  [ -n "$dbgsym" ] || { ls "$work/pkg"; fail "cpack wrote no ${package}-dbgsym_*.ddeb"; }
  ok "cpack -G DEB wrote $(basename "$deb") and $(basename "$dbgsym")"
  [ "$(dpkg-deb -f "$deb" Package)" = "$package" ] || fail "package name"
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "  Depends: $depends"
  for d in libc6 libssl3; do
    echo "$depends" | grep -Eq "(^|, )$d( |,|$)" || fail "Depends lacks $d (dpkg-shlibdeps did not run?)"
  done
  ok "Depends computed by dpkg-shlibdeps (libc6, libssl3)"
  dpkg-deb -c "$deb" >"$work/contents"
  grep -q " ./usr/lib/$multiarch/ossl-modules/mldsa-accel.so\$" "$work/contents" ||
    { cat "$work/contents"; fail "module not at /usr/lib/$multiarch/ossl-modules"; }
  for f in share/mldsa-accel/system-wide.cnf share/mldsa-accel/prefer-mldsa-accel.cnf $doc/copyright \
           $doc/changelog.gz share/man/man7/mldsa-accel.7.gz; do
    grep -q " ./usr/$f\$" "$work/contents" || fail "no /usr/$f in the package"
  done
  ok "module in /usr/lib/$multiarch/ossl-modules, snippets in /usr/share/mldsa-accel, copyright, changelog, manual page"
  dpkg -x "$deb" "$work/root"
  module="$work/root/usr/lib/$multiarch/ossl-modules/mldsa-accel.so"
  ! readelf -S "$module" | grep -Eq ' \.(symtab|debug_info) ' || fail "the packaged module is not stripped"
  build_id=$(readelf -n "$module" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
  [ -n "$build_id" ] || fail "the packaged module has no build ID"
  dpkg -x "$dbgsym" "$work/dbg"
  debug="$work/dbg/usr/lib/debug/.build-id/$(echo "$build_id" | cut -c1-2)/$(echo "$build_id" | cut -c3-).debug"
  [ -f "$debug" ] && readelf -S "$debug" | grep -q ' \.debug_info ' ||
    { find "$work/dbg" -type f; fail "no debug information for build ID $build_id in $(basename "$dbgsym")"; }
  ok "the module is stripped; its debug information is in $(basename "$dbgsym") (build ID $build_id)"
  hardening=$(readelf -d "$module")
  echo "$hardening" | grep -q 'BIND_NOW' && echo "$hardening" | grep -q 'FLAGS_1.*NOW' ||
    fail "the module is not linked with -z now"
  readelf -l "$module" | grep -q GNU_RELRO || fail "the module is not linked with -z relro"
  readelf -W --dyn-syms "$module" | grep -q '__[a-z]*_chk@' || fail "no fortified libc call in the module (-D_FORTIFY_SOURCE)"
  ok "hardened: relro, bindnow, fortified libc calls"
  if [ "$package" = mldsa-accel ]; then
    ! grep -aq 'libcuda\.so' "$module" || fail "the CPU-only package's module embeds the CUDA runtime"
    ok "no CUDA runtime in the CPU-only package's module"
  fi
  for marker in "injected fault" "sim device" "cpu-test"; do
    ! grep -a -q -- "$marker" "$module" ||
      fail "the packaged module contains test machinery ('$marker')"
  done
  ok "the packaged module has no test machinery (simulated device, faults, test executor)"
  system=$("$openssl" version -d | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')/openssl.cnf
  [ -r "$system" ] || fail "cannot read the system's $system"
  { cat "$system"; echo ".include $work/root/usr/share/mldsa-accel/system-wide.cnf"; } >"$work/system.cnf"
  sign_with "$work/system.cnf" "$work/root/usr/lib/$multiarch/ossl-modules" >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "$system + the packaged snippet does not load the packaged module"; }
  ok "$system + .include of the packaged snippet + the packaged module: genpkey, sign, verify"
  if command -v lintian >/dev/null 2>&1; then
    lintian --pedantic "$deb" "$dbgsym" >"$work/lintian.out" 2>&1 || true
    cat "$work/lintian.out"
    ! grep -Eq '^[EW]: ' "$work/lintian.out" || fail "lintian --pedantic reports errors or warnings"
    ok "lintian --pedantic on $(basename "$deb") and $(basename "$dbgsym"): no error, no warning"
  else
    echo "skipped part: lintian --pedantic (lintian is not installed; scripts/setup.sh installs it)"
  fi
  ;;
*) fail "unknown check $what" ;;
esac
