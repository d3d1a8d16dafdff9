// backend.cc - the backend table and its run-time choice.
#include "cpu/backend.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "cpu/keccak.h"
#include "cpu/mldsa.h"
#include "cpu/ntt.h"
#include "cpu/packing.h"
#include "cpu/rounding.h"
#include "cpu/sampling.h"

#if defined(MLDSA_HAVE_NEON) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace mldsa {
namespace {
void decompose_w1_ref(Poly* a1, Poly* a0, uint8_t* w1enc, const Poly* a, int32_t gamma2) {
  poly_decompose(a1, a0, a, gamma2);
  pack_w1(w1enc, a1, gamma2);
}
void use_hint_w1_ref(uint8_t* w1enc, const Poly* a, const Poly* h, int32_t gamma2) {
  Poly w1;
  poly_use_hint(&w1, a, h, gamma2);
  pack_w1(w1enc, &w1, gamma2);
}
void caddq_ref(Poly* a) {
  for (int i = 0; i < N; ++i) a->c[i] = caddq(a->c[i]);
}
}  // namespace

const Backend kRefBackend = {
    "ref",
    keccakf1600_ref,
    keccakf1600x4_ref,
    ntt_ref,
    invntt_tomont_ref,
    pointwise_acc_ref,
    small_ntt_ref,
    small_mul_ref,
    expand_a_ref,
    expand_s_ref,
    expand_mask_ref,
    decompose_w1_ref,
    use_hint_w1_ref,
    pack_bits,
    unpack_bits,
    poly_exceeds,
    poly_add_reduce_exceeds,
    poly_sub_reduce_exceeds,
    poly_make_hint,
    caddq_ref,
    hint_positions,
    poly_power2round,
    {1, 1, 1},  // its 4-way permutation is four single ones: grouping saves nothing
    nullptr,    // its 4-way permutation is four single ones: no lanes to share
    {0, 0, 0},
    {0, 0, 0},
    1,          // one sponge per polynomial: nothing to draw ahead
    nullptr,    // no lanes to share
    {0, 0, 0},
};

namespace {

// Microarchitectures that have tables of their own (measured there; every
// other CPU gets the generic ones). From CPUID leaf 0 (vendor) and leaf 1
// (family, model).
enum class Microarch { other, amd_zen5 };

Microarch detect_microarch() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return Microarch::other;
  const bool amd = b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163;  // "AuthenticAMD"
  if (!__get_cpuid(1, &a, &b, &c, &d)) return Microarch::other;
  const unsigned family = ((a >> 8) & 0xF) == 0xF ? 0xF + ((a >> 20) & 0xFF) : (a >> 8) & 0xF;
  // Family 1Ah: Zen 5 and Zen 5c (EPYC 9005, Ryzen 9000 / AI 300).
  if (amd && family == 0x1A) return Microarch::amd_zen5;
#endif
  return Microarch::other;
}

Microarch microarch() {
  static const Microarch m = detect_microarch();
  return m;
}

// Backends compiled in, best first; of one backend, its tables for a
// microarchitecture before its generic one.
struct Candidate {
  const Backend* table;
  Microarch for_cpu;  // other: the generic table
};
const Candidate kBackends[] = {
#ifdef MLDSA_HAVE_AVX512
    {&kAvx512Zen5Backend, Microarch::amd_zen5},
    {&kAvx512Backend, Microarch::other},
#endif
#ifdef MLDSA_HAVE_AVX2
    {&kAvx2Zen5Backend, Microarch::amd_zen5},
    {&kAvx2Backend, Microarch::other},
#endif
#ifdef MLDSA_HAVE_NEON
    {&kNeonSha3Backend, Microarch::other},
    {&kNeonBackend, Microarch::other},
#endif
    {&kRefBackend, Microarch::other},
};

// libgcc's __builtin_cpu_supports reports an AVX feature only when the OS
// also saves its registers (OSXSAVE and the XCR0 bits, read with XGETBV).
bool cpu_supports(const Backend& b) {
#ifdef MLDSA_HAVE_AVX512
  if (std::string_view(b.name) == "avx512") {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  }
#endif
#ifdef MLDSA_HAVE_AVX2
  if (std::string_view(b.name) == "avx2") {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  }
#endif
#ifdef MLDSA_HAVE_NEON
  // AArch64 Linux reports Advanced SIMD and the SHA-3 extension in AT_HWCAP
  // (elsewhere Advanced SIMD, part of the AArch64 base, is taken as given).
#ifdef __linux__
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const bool asimd = hwcap & HWCAP_ASIMD, sha3 = hwcap & HWCAP_SHA3;
#else
  const bool asimd = true, sha3 = false;
#endif
  if (&b == &kNeonSha3Backend) return asimd && sha3;
  if (&b == &kNeonBackend) return asimd;
#endif
  return &b == &kRefBackend;
}

// A backend name ("auto": the best this CPU runs), optionally with
// "@<tuning>" for one of its tables (e.g. avx2@generic, avx2@zen5); without
// it, the table for this microarchitecture. Null if the CPU cannot run it or
// there is no such table.
const Backend* find(std::string_view spec) {
  const size_t at = spec.find('@');
  const std::string_view name = spec.substr(0, at);
  const std::string_view tuning = at == std::string_view::npos ? std::string_view() : spec.substr(at + 1);
  if (at != std::string_view::npos && tuning.empty()) return nullptr;
  for (const Candidate& c : kBackends) {
    if (name != "auto" && name != c.table->name) continue;
    if (!cpu_supports(*c.table)) continue;
    if (tuning.empty() ? c.for_cpu == Microarch::other || c.for_cpu == microarch() : tuning == c.table->tuning)
      return c.table;  // the first that fits (the best, for "auto")
  }
  return name == "auto" && tuning.empty() ? &kRefBackend : nullptr;
}

std::atomic<const Backend*> g_active{nullptr};

// The core reads no environment: the module's cpu_backend setting
// (MLDSA_ACCEL_CPU) and programs of the core alone choose with select_backend.
const Backend* initial() { return find("auto"); }

}  // namespace

const Backend& backend() {
  const Backend* b = g_active.load(std::memory_order_acquire);
  if (!b) {
    b = initial();
    const Backend* expected = nullptr;
    if (!g_active.compare_exchange_strong(expected, b, std::memory_order_acq_rel)) b = expected;
  }
  return *b;
}

const char* backend_name() { return backend().name; }
const char* backend_tuning() { return backend().tuning; }

void use_backend_for_testing(const Backend* b) { g_active.store(b, std::memory_order_release); }

std::vector<const Backend*> backend_tables(std::string_view name) {
  std::vector<const Backend*> out;
  const Backend* first = find(name);
  if (!first) return out;
  out.push_back(first);
  for (const Candidate& c : kBackends)
    if (c.table != first && std::string_view(first->name) == c.table->name && cpu_supports(*c.table))
      out.push_back(c.table);
  return out;
}

// The grammar find() reads: "auto" or a name, optionally "@<tuning>" of a
// table ("auto@<tuning>": the best backend with a table of that tuning).
std::vector<std::string> backend_specs() {
  std::vector<std::string> out = {"auto"};
  const auto add = [&out](std::string spec) {
    if (std::find(out.begin(), out.end(), spec) == out.end()) out.push_back(std::move(spec));
  };
  for (const Candidate& c : kBackends) add(std::string("auto@") + c.table->tuning);
  for (const Candidate& c : kBackends) {
    add(c.table->name);
    add(std::string(c.table->name) + '@' + c.table->tuning);
  }
  return out;
}

bool select_backend(std::string_view name) {
  const Backend* b = find(name);
  if (!b) return false;
  g_active.store(b, std::memory_order_release);
  return true;
}

}  // namespace mldsa
