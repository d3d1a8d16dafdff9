#!/usr/bin/env bash
# fetch-openssl35.sh - OpenSSL 3.5 (Debian 13's) for the interop tests:
# scripts/fetch-openssl.sh 3.5 [--dir DIR] [--refresh]; prints DIR/bin/openssl35.
exec "$(dirname "${BASH_SOURCE[0]}")/fetch-openssl.sh" 3.5 "$@"
