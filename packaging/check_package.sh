#!/bin/sh
# check_package.sh install|deb BUILD_DIR OPENSSL MULTIARCH PACKAGE - the install rules and the .debs.
#   install  `cmake --install BUILD_DIR --prefix TMP`: the module, docs, changelog,
#            manual page, examples and .pc land in their places, and the installed
#            application.cnf loads the installed module (OPENSSL_MODULES = the
#            installed MODULESDIR); the bulk library, its header and .pc
#            (pkg-config --cflags --libs mldsa-accel-batch), the mldsa-accel
#            tool (it runs on the installed library) and its manual page.
#   deb      `cpack -G DEB`: the four packages (PACKAGE, libmldsa-accel-batch0,
#            libmldsa-accel-batch-dev, mldsa-accel-tools) and the -dbgsym of each
#            that has binaries, each holding exactly its files. PACKAGE: name,
#            version, Depends from dpkg-shlibdeps (libc6, libssl3), the module in
#            /usr/lib/MULTIARCH/ossl-modules, hardened, no CUDA runtime in
#            mldsa-accel (the CPU-only package); the snippets in
#            /usr/share/mldsa-accel; unpacked with dpkg -x, the system's own
#            openssl.cnf plus `.include` of that snippet loads it. The library:
#            shlibs and an ldconfig trigger, no postinst or postrm. The dev
#            package and the tool depend on the library's exact version; the
#            unpacked .pc and tool work. Every binary is stripped, its debug
#            information (.debug_info) in its package's -dbgsym; and
#            `lintian --pedantic` prints no E: or W: line for any package
#            (where lintian is installed, as scripts/setup.sh does).
# Neither needs root: nothing is written outside a temporary folder.
set -eu
what=$1 build=$2 openssl=$3 multiarch=$4 package=$5
doc=share/doc/$package
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
lib=libmldsa-accel-batch
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

# The ELF file $1 (unpacked from a .deb) is stripped, and the -dbgsym .ddeb $2
# holds its debug information under its build ID.
stripped_with_debug() {
  ! readelf -S "$1" | grep -Eq ' \.(symtab|debug_info) ' || fail "$(basename "$1") is not stripped"
  build_id=$(readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
  [ -n "$build_id" ] || fail "$(basename "$1") has no build ID"
  rm -rf "$work/dbg" && dpkg -x "$2" "$work/dbg"
  debug="$work/dbg/usr/lib/debug/.build-id/$(echo "$build_id" | cut -c1-2)/$(echo "$build_id" | cut -c3-).debug"
  [ -f "$debug" ] && readelf -S "$debug" 2>/dev/null | grep -q ' \.debug_info ' ||
    { find "$work/dbg" -type f; fail "no debug information for $(basename "$1") (build ID $build_id) in $(basename "$2")"; }
  ok "$(basename "$1") is stripped; its debug information is in $(basename "$2") (build ID $build_id)"
}

# The files (not folders) of the .deb $1, sorted, one a line, as /usr/...
files_of() {
  dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort
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
  libdir=$(dirname "$(dirname "$pc")")
  for f in "$libdir/$lib.so.0" "$libdir/$lib.so" "$libdir/pkgconfig/mldsa-accel-batch.pc" \
           "$prefix/include/mldsa_accel/batch.h" "$prefix/bin/mldsa-accel" "$prefix/share/man/man1/mldsa-accel.1.gz"; do
    [ -e "$f" ] || fail "missing ${f#"$prefix"/}"
  done
  flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs mldsa-accel-batch) ||
    fail "pkg-config --cflags --libs mldsa-accel-batch"
  flags=$(echo $flags)  # pkg-config ends its line with a space
  [ "$flags" = "-I$prefix/include -L$libdir -lmldsa-accel-batch" ] ||
    fail "pkg-config --cflags --libs mldsa-accel-batch says '$flags'"
  ok "$lib.so.0, its .so link, batch.h and mldsa-accel-batch.pc installed: $flags"
  LD_LIBRARY_PATH=$libdir "$prefix/bin/mldsa-accel" --help >"$work/out" 2>&1 &&
    grep -q '^usage: mldsa-accel' "$work/out" || { cat "$work/out"; fail "the installed mldsa-accel --help"; }
  ok "the installed mldsa-accel tool runs on the installed library; mldsa-accel(1) installed"
  ;;
deb)
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack -G DEB"; }
  # Each package's file (exactly one), and the -dbgsym of those with binaries.
  pkg_file() {
    found=$(find "$work/pkg" -maxdepth 1 -name "$1")
    [ -n "$found" ] && [ "$(echo "$found" | wc -l)" -eq 1 ] || { ls "$work/pkg" >&2; fail "cpack wrote no single $1" >&2; }
    echo "$found"
  }
  deb=$(pkg_file "${package}_*.deb")
  dbgsym=$(pkg_file "${package}-dbgsym_*.ddeb")
  libdeb=$(pkg_file "${lib}0_*.deb")
  libdbgsym=$(pkg_file "${lib}0-dbgsym_*.ddeb")
  devdeb=$(pkg_file "$lib-dev_*.deb")
  toolsdeb=$(pkg_file "mldsa-accel-tools_*.deb")
  toolsdbgsym=$(pkg_file "mldsa-accel-tools-dbgsym_*.ddeb")
  all="$deb $dbgsym $libdeb $libdbgsym $devdeb $toolsdeb $toolsdbgsym"
  [ "$(find "$work/pkg" -maxdepth 1 -name '*.*deb' | wc -l)" -eq 7 ] || { ls "$work/pkg"; fail "cpack wrote other packages too"; }
  ok "cpack -G DEB wrote $(for f in $all; do basename "$f"; done | tr '\n' ' ')"
  [ "$(dpkg-deb -f "$deb" Package)" = "$package" ] || fail "package name"
  version=$(dpkg-deb -f "$deb" Version)
  for f in $all; do
    [ "$(dpkg-deb -f "$f" Version)" = "$version" ] || fail "$(basename "$f") is not version $version"
  done
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
           $doc/changelog.gz share/man/man7/mldsa-accel.7.gz lib/$multiarch/pkgconfig/mldsa-accel.pc; do
    grep -q " ./usr/$f\$" "$work/contents" || fail "no /usr/$f in the package"
  done
  stray=$(files_of "$deb" | grep -Ev "^/usr/(lib/$multiarch/ossl-modules/mldsa-accel\.so|share/mldsa-accel/[^/]*|$doc/.*|share/man/man7/mldsa-accel\.7\.gz|lib/$multiarch/pkgconfig/mldsa-accel\.pc)\$" || true)
  [ -z "$stray" ] || fail "$(basename "$deb") holds files of other packages: $stray"
  ok "module in /usr/lib/$multiarch/ossl-modules, snippets in /usr/share/mldsa-accel, copyright, changelog, manual page, .pc; nothing else"
  # The other packages hold exactly these files.
  holds() {
    f=$1
    shift
    files_of "$f" >"$work/got"
    printf '%s\n' "$@" | sort >"$work/want"
    diff -u "$work/want" "$work/got" || fail "$(basename "$f") does not hold what it should (- missing, + not its own)"
  }
  holds "$libdeb" "/usr/lib/$multiarch/$lib.so.0" "/usr/lib/$multiarch/$lib.so.$version" \
    "/usr/share/doc/${lib}0/copyright" "/usr/share/doc/${lib}0/changelog.gz"
  holds "$devdeb" "/usr/lib/$multiarch/$lib.so" "/usr/include/mldsa_accel/batch.h" \
    "/usr/lib/$multiarch/pkgconfig/mldsa-accel-batch.pc" \
    "/usr/share/doc/$lib-dev/copyright" "/usr/share/doc/$lib-dev/changelog.gz"
  holds "$toolsdeb" /usr/bin/mldsa-accel /usr/share/man/man1/mldsa-accel.1.gz \
    /usr/share/doc/mldsa-accel-tools/copyright /usr/share/doc/mldsa-accel-tools/changelog.gz
  ok "${lib}0: $lib.so.0 and .so.$version; $lib-dev: the .so link, batch.h, mldsa-accel-batch.pc; mldsa-accel-tools: mldsa-accel, mldsa-accel(1)"
  dpkg-deb -e "$libdeb" "$work/libctl"
  [ ! -e "$work/libctl/postinst" ] && [ ! -e "$work/libctl/postrm" ] ||
    { ls "$work/libctl"; fail "${lib}0 has a postinst or postrm (CPack's ldconfig calls left in?)"; }
  [ "$(cat "$work/libctl/triggers" 2>/dev/null)" = "activate-noawait ldconfig" ] ||
    fail "${lib}0 has no ldconfig trigger (DEBIAN/triggers)"
  [ "$(cat "$work/libctl/shlibs" 2>/dev/null)" = "$lib 0 ${lib}0 (>= $version)" ] ||
    { cat "$work/libctl/shlibs"; fail "${lib}0's shlibs is not '$lib 0 ${lib}0 (>= $version)'"; }
  ok "${lib}0: shlibs '$lib 0 ${lib}0 (>= $version)', an ldconfig trigger, no postinst or postrm"
  for f in "$devdeb" "$toolsdeb"; do
    d=$(dpkg-deb -f "$f" Depends)
    echo "  $(dpkg-deb -f "$f" Package) Depends: $d"
    echo "$d" | grep -Eq "(^|, )${lib}0 \(= $version\)(,|$)" || fail "$(basename "$f") does not depend on ${lib}0 (= $version)"
  done
  toolsdepends=$(dpkg-deb -f "$toolsdeb" Depends)
  for d in libc6 libssl3; do
    echo "$toolsdepends" | grep -Eq "(^|, )$d( |,|$)" || fail "mldsa-accel-tools' Depends lacks $d (dpkg-shlibdeps did not run?)"
  done
  ok "$lib-dev and mldsa-accel-tools depend on ${lib}0 (= $version); the tool also on libc6, libssl3 (dpkg-shlibdeps)"
  for f in "$deb" "$libdeb" "$devdeb" "$toolsdeb"; do
    dpkg -x "$f" "$work/root"
  done
  flags=$(PKG_CONFIG_PATH="$work/root/usr/lib/$multiarch/pkgconfig" pkg-config --cflags --libs mldsa-accel-batch) ||
    fail "pkg-config on the packaged mldsa-accel-batch.pc"
  flags=$(echo $flags)
  grep -qx 'prefix=/usr' "$work/root/usr/lib/$multiarch/pkgconfig/mldsa-accel-batch.pc" && [ "$flags" = "-lmldsa-accel-batch" ] ||
    { cat "$work/root/usr/lib/$multiarch/pkgconfig/mldsa-accel-batch.pc"; fail "the packaged mldsa-accel-batch.pc: '$flags'"; }
  ok "the packaged mldsa-accel-batch.pc: prefix /usr, pkg-config --cflags --libs: $flags"
  LD_LIBRARY_PATH="$work/root/usr/lib/$multiarch" "$work/root/usr/bin/mldsa-accel" --help >"$work/out" 2>&1 &&
    grep -q '^usage: mldsa-accel' "$work/out" || { cat "$work/out"; fail "the packaged mldsa-accel --help"; }
  ok "the packaged mldsa-accel runs on the packaged library"
  module="$work/root/usr/lib/$multiarch/ossl-modules/mldsa-accel.so"
  stripped_with_debug "$module" "$dbgsym"
  stripped_with_debug "$work/root/usr/lib/$multiarch/$lib.so.$version" "$libdbgsym"
  stripped_with_debug "$work/root/usr/bin/mldsa-accel" "$toolsdbgsym"
  for elf in "$module" "$work/root/usr/lib/$multiarch/$lib.so.$version" "$work/root/usr/bin/mldsa-accel"; do
    hardening=$(readelf -d "$elf")
    echo "$hardening" | grep -q 'BIND_NOW' && echo "$hardening" | grep -q 'FLAGS_1.*NOW' ||
      fail "$(basename "$elf") is not linked with -z now"
    readelf -l "$elf" | grep -q GNU_RELRO || fail "$(basename "$elf") is not linked with -z relro"
    readelf -W --dyn-syms "$elf" | grep -q '__[a-z]*_chk@' || fail "no fortified libc call in $(basename "$elf") (-D_FORTIFY_SOURCE)"
  done
  ok "hardened (module, library, tool): relro, bindnow, fortified libc calls"
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
    # shellcheck disable=SC2086 # $all: the package files, no spaces in their names
    lintian --pedantic $all >"$work/lintian.out" 2>&1 || true
    cat "$work/lintian.out"
    ! grep -Eq '^[EW]: ' "$work/lintian.out" || fail "lintian --pedantic reports errors or warnings"
    ok "lintian --pedantic on all $(echo $all | wc -w) packages: no error, no warning"
  else
    echo "skipped part: lintian --pedantic (lintian is not installed; scripts/setup.sh installs it)"
  fi
  ;;
*) fail "unknown check $what" ;;
esac
