#!/bin/sh
# run_differential.sh - runs fuzz_differential (its path, then libFuzzer's
# arguments) on OpenSSL 3.5's libcrypto: the one scripts/fetch-openssl35.sh
# unpacked next to $OPENSSL35, started with that tree's own loader (Debian
# 13's glibc; the host's is older). Without OPENSSL35 it reports itself
# skipped (exit 77); the target also skips itself on a libcrypto before 3.5.
bin=$1
shift
if [ -z "${OPENSSL35:-}" ]; then
  echo "skipped: OPENSSL35 is not set (scripts/fetch-openssl35.sh prints the path to set it to)"
  exit 77
fi
root=$(dirname "$(dirname "$OPENSSL35")")/root
loader=$root/usr/lib64/ld-linux-x86-64.so.2
if [ -x "$loader" ]; then
  exec "$loader" --library-path "$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu" "$bin" "$@"
fi
# Not a fetched tree (an OpenSSL 3.5 installed as the system's): the
# libcrypto the program finds is the one it gets.
exec "$bin" "$@"
