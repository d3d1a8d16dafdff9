#!/bin/sh
# Runs the constant-time check under memcheck. Any report about an undefined
# (secret) value in a branch or address makes valgrind exit 1: the test fails.
# Exit 77 (ctest: skipped) when valgrind is not installed.
# Usage: run_under_valgrind.sh PROGRAM [ARGS...]
if ! command -v valgrind >/dev/null 2>&1; then
  echo "skipped: valgrind not found"
  exit 77
fi
exec valgrind --error-exitcode=1 --track-origins=yes --leak-check=no "$@"
