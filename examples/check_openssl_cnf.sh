#!/bin/sh
# check_openssl_cnf.sh OPENSSL CNF - the README's openssl.cnf example works:
# with OPENSSL_CONF alone (no -provider options) the CLI loads mldsa-accel,
# makes and uses ML-DSA keys, and honours the [ml_dsa_sect] settings.
set -eu
openssl=$1
cnf=$2
if [ -z "$openssl" ] || [ ! -x "$openssl" ]; then
  echo "skipped: no openssl command line found"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

export OPENSSL_CONF="$cnf"
"$openssl" list -providers | grep -A3 'mldsa-accel' | grep -q 'status: active' \
  || fail "mldsa-accel is not active under $cnf"

"$openssl" genpkey -algorithm ML-DSA-65 -out "$work/key.pem" || fail "genpkey ML-DSA-65"
echo "example message" >"$work/msg"
"$openssl" pkeyutl -sign -rawin -inkey "$work/key.pem" -in "$work/msg" -out "$work/sig" \
  || fail "pkeyutl -sign"
"$openssl" pkeyutl -verify -rawin -inkey "$work/key.pem" -in "$work/msg" -sigfile "$work/sig" \
  || fail "pkeyutl -verify"

# The example keeps the seed (retain_seed = yes): the key text shows it ...
"$openssl" pkey -in "$work/key.pem" -noout -text | grep -q '^seed:' \
  || fail "retain_seed = yes: the key has no seed"
# ... and the same file with retain_seed = no drops it, so the section is read.
sed 's/^retain_seed = yes/retain_seed = no/' "$cnf" >"$work/noseed.cnf"
grep -q '^retain_seed = no' "$work/noseed.cnf" || fail "could not derive the retain_seed = no config"
OPENSSL_CONF="$work/noseed.cnf" "$openssl" pkey -in "$work/key.pem" -noout -text >"$work/noseed.txt" \
  || fail "pkey with retain_seed = no"
if grep -q '^seed:' "$work/noseed.txt"; then
  fail "retain_seed = no in [ml_dsa_sect] had no effect"
fi
echo "examples/openssl.cnf: provider loaded, sign/verify OK, [ml_dsa_sect] honoured"
