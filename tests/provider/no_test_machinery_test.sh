#!/bin/sh
# no_test_machinery_test.sh SHIPPED TESTING - the shipped module holds none of
# the test machinery (the simulated device, its faults, the test executor:
# route/test_hooks.h), and the test build of it does, so the check can fail.
shipped="$1" testing="$2"
for marker in "injected fault" "sim device" "cpu-test"; do
  if grep -a -q -- "$marker" "$shipped"; then
    echo "FAIL: the shipped module $shipped contains '$marker'"
    exit 1
  fi
  if ! grep -a -q -- "$marker" "$testing"; then
    echo "FAIL: the test module $testing lacks '$marker' (the check would prove nothing)"
    exit 1
  fi
  echo "ok: '$marker' only in the test build"
done
