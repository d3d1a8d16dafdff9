#!/usr/bin/env bash
# demo.sh - mldsa-accel at work in a few minutes, building only what it runs.
#
#   1. installs the missing Debian packages it needs (scripts/setup.sh --demo;
#      as root, otherwise it lists them and stops)
#   2. builds the provider module and the core's tests in build-demo/ (Release,
#      no CUDA, no benchmarks, no sanitizers; output in build-demo/demo-build.log)
#   3. the core's known-answer tests (ctest -L core), one summary line
#   4. the provider on the system's OpenSSL 3.0: an ML-DSA-65 key, a file
#      signed and verified with a context string, a wrong context refused, a
#      self-signed certificate, printing every openssl command it runs
#   5. this provider next to OpenSSL 3.5's own ML-DSA, both in one OpenSSL 3.5
#      (the system's openssl when it is 3.5 or later, else fetched as the tests
#      fetch it, scripts/fetch-openssl35.sh), `openssl speed` for each
# and ends with the line "demo passed". MLDSA_ACCEL_BUILD_ROOT moves the build
# folder, MLDSA_ACCEL_JOBS sets the parallel jobs (default: nproc).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MLDSA_ACCEL_BUILD_ROOT:-$repo}/build-demo
jobs=${MLDSA_ACCEL_JOBS:-$(nproc)}
t0=$SECONDS

step() { echo; echo "=== $* ($((SECONDS - t0)) s)"; }
fail() { echo "demo FAILED: $*" >&2; exit 1; }

# The expected time: 4.7 minutes of CPU time were measured (most of it the
# build, at -j2), so about 4 minutes on 2 idle cores is a prediction; the
# measured wall time on the project's busy 2-core machine was 12 minutes.
echo "mldsa-accel demo: expect about 4 minutes on an idle 2-core machine with the Debian"
echo "packages installed, 1 to 2 more to install them on a fresh one (this machine: $(nproc) cores)."

step "1. Debian packages (scripts/setup.sh --demo)"
"$repo/scripts/setup.sh" --demo

step "2. Build: the provider module and the core's tests, in $build"
mkdir -p "$build"
log="$build/demo-build.log"
echo "(compiler output in $log)"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMLDSA_ACCEL_CUDA=OFF -DMLDSA_ACCEL_BENCH=OFF \
  >"$log" 2>&1 || { tail -20 "$log"; fail "cmake configure (see $log)"; }
# The core's test programs (core_*) and the module; nothing else.
mapfile -t targets < <(cmake --build "$build" --target help | sed -n 's/^\.\.\. \(core_[a-z0-9_]*\)$/\1/p')
[ ${#targets[@]} -gt 0 ] || fail "no core_* test targets in $build"
cmake --build "$build" -j"$jobs" --target mldsa-accel "${targets[@]}" >>"$log" 2>&1 ||
  { tail -30 "$log"; fail "build (see $log)"; }
echo "built mldsa-accel.so and ${#targets[@]} test programs"

step "3. The core's self-test: NIST ACVP keyGen/sigGen/sigVer, round-3 KATs, round trips, bad input"
junit="$build/demo-ctest.xml"
ctest --test-dir "$build" -L core -j"$jobs" --no-tests=error --output-junit "$junit" \
  >"$build/demo-ctest.log" 2>&1 || ctest_rc=$?
# One line of counts, the skips with their reasons, the failures with their output.
python3 - "$junit" "$build/demo-ctest.log" "${ctest_rc:-0}" <<'PY' || fail "core tests"
import collections, re, sys
import xml.etree.ElementTree as ET
junit, log, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
passed, failed, skipped = [], [], collections.Counter()
for case in ET.parse(junit).getroot().iter("testcase"):
    status, name = case.get("status"), case.get("name")
    out = "".join(e.text or "" for e in case.iter("system-out"))
    if status == "run":
        passed.append(name)
    elif status == "fail":
        failed.append((name, out))
    else:
        m = re.search(r"(?:skipped:|SKIPPED \]|Skipped)\s*(.*)", out)
        reason = (m.group(1).strip() if m else "") or "no reason printed"
        # A backend's whole suite skips for one reason: group by it.
        skipped[f"{name.split('.')[0]}: {reason[:120]}"] += 1
backends = sorted({n.split(".")[0] for n in passed})
print(f"core tests: {len(passed)} passed, {len(failed)} failed, {sum(skipped.values())} skipped"
      f" (test groups run here: {', '.join(backends)})")
for why, n in sorted(skipped.items()):
    print(f"  skipped {n}: {why}")
for name, out in failed[:5]:
    print(f"  FAILED {name}:\n    " + out.strip()[-1500:].replace("\n", "\n    "))
if failed or rc != 0:
    print(f"  (full output: {log})")
    sys.exit(1)
PY

step "4. The provider on the system OpenSSL ($(openssl version | cut -d' ' -f1-2))"
moddir="$build/providers"
[ -f "$moddir/mldsa-accel.so" ] || fail "no $moddir/mldsa-accel.so"
work="$build/demo"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
prov=(-provider-path "$moddir" -provider mldsa-accel -provider default)
run() { echo "\$ $*"; "$@"; }

run openssl list -signature-algorithms -provider-path "$moddir" -provider mldsa-accel
run openssl genpkey "${prov[@]}" -algorithm ML-DSA-65 -out key.pem
run openssl pkey "${prov[@]}" -in key.pem -pubout -out pub.pem
run openssl pkey "${prov[@]}" -pubin -in pub.pem -noout -text | head -4
echo "mldsa-accel demo: sign me" >message.txt
run openssl pkeyutl -sign "${prov[@]}" -rawin -inkey key.pem -in message.txt -out message.sig \
  -pkeyopt context-string:demo
echo "signature: $(wc -c <message.sig) bytes"
run openssl pkeyutl -verify "${prov[@]}" -rawin -pubin -inkey pub.pem -in message.txt \
  -sigfile message.sig -pkeyopt context-string:demo
echo "(the same signature with another context string must fail:)"
if openssl pkeyutl -verify "${prov[@]}" -rawin -pubin -inkey pub.pem -in message.txt \
    -sigfile message.sig -pkeyopt context-string:other >/dev/null 2>&1; then
  fail "verification with the wrong context string succeeded"
fi
echo "Signature Verification Failure (as expected)"
run openssl req "${prov[@]}" -x509 -new -key key.pem -subj "/CN=mldsa-accel demo" -days 30 -out cert.pem
openssl x509 "${prov[@]}" -in cert.pem -noout -text | grep -m2 -E 'Version:|Signature Algorithm:'
run openssl verify "${prov[@]}" -CAfile cert.pem cert.pem

step "5. This provider next to OpenSSL 3.5's own ML-DSA"
newer=""
why=""
if openssl version | grep -Eq '^OpenSSL (3\.([5-9]|[1-9][0-9])|[4-9])\.'; then
  newer=$(command -v openssl)
elif newer=$("$repo/scripts/fetch-openssl35.sh" 2>"$build/demo-fetch.log"); then
  :
else
  newer=""
  why="scripts/fetch-openssl35.sh failed (no Debian mirror reachable?): $(tail -1 "$build/demo-fetch.log")"
fi
if [ -n "$newer" ]; then
  seconds=1
  echo "\`openssl speed -seconds $seconds\` in $("$newer" version | cut -d' ' -f1-2) ($newer), one core, each"
  echo "implementation measured once, one after the other (not interleaved):"
  "$newer" speed -seconds "$seconds" ML-DSA-44 ML-DSA-65 ML-DSA-87 >"$work/speed-builtin.txt" 2>/dev/null ||
    fail "openssl speed with OpenSSL's own ML-DSA"
  "$newer" speed -provider-path "$moddir" -provider mldsa-accel -provider default \
    -propquery '?provider=mldsa-accel' -seconds "$seconds" ML-DSA-44 ML-DSA-65 ML-DSA-87 \
    >"$work/speed-mldsa-accel.txt" 2>/dev/null || fail "openssl speed with mldsa-accel"
  # The backend the provider picked (its cpu-backend and cpu-tuning parameters).
  backend=$(python3 - "$moddir" <<'PY' 2>/dev/null || echo "?"
import ctypes, sys
class Param(ctypes.Structure):  # OSSL_PARAM
    _fields_ = [("key", ctypes.c_char_p), ("data_type", ctypes.c_uint), ("data", ctypes.c_void_p),
                ("data_size", ctypes.c_size_t), ("return_size", ctypes.c_size_t)]
lib = ctypes.CDLL("libcrypto.so.3")
lib.OSSL_LIB_CTX_new.restype = ctypes.c_void_p
lib.OSSL_PROVIDER_set_default_search_path.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.OSSL_PROVIDER_load.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.OSSL_PROVIDER_load.restype = ctypes.c_void_p
lib.OSSL_PROVIDER_get_params.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
ctx = lib.OSSL_LIB_CTX_new()
lib.OSSL_PROVIDER_set_default_search_path(ctx, sys.argv[1].encode())
prov = lib.OSSL_PROVIDER_load(ctx, b"mldsa-accel")
values = [ctypes.c_char_p(), ctypes.c_char_p()]
params = (Param * 3)(*[Param(k, 6, ctypes.cast(ctypes.byref(v), ctypes.c_void_p), 0, 0)  # 6: UTF8 pointer
                       for k, v in zip((b"cpu-backend", b"cpu-tuning"), values)], Param())
if not prov or lib.OSSL_PROVIDER_get_params(prov, params) != 1:
    sys.exit(1)
print("@".join(v.value.decode() for v in values))
PY
)
  python3 - "$work/speed-builtin.txt" "$work/speed-mldsa-accel.txt" "${backend:-?}" <<'PY' || fail "speed table"
import re, sys
def rates(path):
    out = {}
    for line in open(path):
        m = re.match(r"\s*(ML-DSA-\d+)\s+\S+s\s+\S+s\s+\S+s\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", line)
        if m:
            out[m.group(1)] = [float(x) for x in m.group(2, 3, 4)]
    return out
builtin, ours = rates(sys.argv[1]), rates(sys.argv[2])
if not builtin or builtin.keys() != ours.keys():
    sys.exit("could not read both `openssl speed` outputs")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"CPU: {cpu}; mldsa-accel's backend: {sys.argv[3]}")
print()
print("| parameter set | operation | OpenSSL 3.5 built-in, ops/s | mldsa-accel, ops/s | mldsa-accel / built-in |")
print("|---|---|---:|---:|---:|")
for alg in sorted(builtin):
    for i, op in enumerate(("keygen", "sign", "verify")):
        b, o = builtin[alg][i], ours[alg][i]
        print(f"| {alg} | {op} | {b:,.0f} | {o:,.0f} | {o / b:.2f}x |")
print()
print("ops/s: operations per second on one core, as `openssl speed` counts them: keygen")
print("makes a key, sign signs its short test message with one key object, verify checks")
print("that signature. mldsa-accel / built-in above 1: this provider is faster (OpenSSL")
print("3.5's ML-DSA is portable C; this provider runs vector code and keeps a key's")
print("expanded form in the key object). One short run each, on a machine that may be")
print("busy: differences within about 10% are noise.")
PY
fi

echo
if [ -n "$why" ]; then
  echo "demo passed in $((SECONDS - t0)) s (without the OpenSSL 3.5 comparison: $why)"
else
  echo "demo passed in $((SECONDS - t0)) s"
fi
