#!/bin/sh
# run_openssl35.sh PROBE MODULE_DIR [NN] - runs the message-API probe on OpenSSL
# 3.5's libcrypto (NN = 36: 3.6's) from scripts/fetch-openssl.sh's cache,
# through that Debian's own loader. Exit 77 (skipped) when that cache is absent.
probe="$1"; modules="$2"; nn="${3:-35}"
case "$nn" in
  35) dir="${MLDSA_ACCEL_OPENSSL35_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/openssl35}" ;;
  36) dir="${MLDSA_ACCEL_OPENSSL36_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/openssl36}" ;;
  *) echo "run_openssl35.sh: NN must be 35 or 36"; exit 2 ;;
esac
root="$dir/root"
loader="$root/usr/lib64/ld-linux-x86-64.so.2"
if [ ! -x "$loader" ] || [ ! -e "$root/usr/lib/x86_64-linux-gnu/libcrypto.so.3" ]; then
  echo "skipped: no OpenSSL ${nn%?}.${nn#?} in $dir (run scripts/fetch-openssl.sh ${nn%?}.${nn#?})"
  exit 77
fi
OPENSSL_CONF=/dev/null exec "$loader" --library-path "$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu" \
  "$probe" "$modules"
