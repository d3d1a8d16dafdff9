#!/bin/sh
# run_openssl35.sh PROBE MODULE_DIR - runs the message-API probe on OpenSSL
# 3.5's libcrypto (from scripts/fetch-openssl35.sh's cache), through Debian
# 13's own loader. Exit 77 (skipped) when that cache is absent.
probe="$1"; modules="$2"
dir="${MLDSA_ACCEL_OPENSSL35_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/openssl35}"
root="$dir/root"
loader="$root/usr/lib64/ld-linux-x86-64.so.2"
if [ ! -x "$loader" ] || [ ! -e "$root/usr/lib/x86_64-linux-gnu/libcrypto.so.3" ]; then
  echo "skipped: no OpenSSL 3.5 in $dir (run scripts/fetch-openssl35.sh)"
  exit 77
fi
OPENSSL_CONF=/dev/null exec "$loader" --library-path "$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu" \
  "$probe" "$modules"
