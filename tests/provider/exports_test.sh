#!/bin/sh
# exports_test.sh MODULE - the module's dynamic symbol table defines exactly
# one symbol, OSSL_provider_init (nothing else for an application to clash with).
module="$1"
command -v nm >/dev/null 2>&1 || { echo "skipped: no nm"; exit 77; }
defined=$(nm -D --defined-only "$module" | awk '{print $3}' | sort)
echo "defined dynamic symbols: $defined"
[ "$defined" = "OSSL_provider_init" ]
