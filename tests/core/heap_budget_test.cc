// heap_budget_test.cc - the heap one signature or verification takes.
//
// Each call allocates its vectors on the heap (ASYNC jobs run on 32 KiB
// stacks) and frees them on return. When that frees more than glibc's trim
// threshold (128 KiB by default), the heap can be handed back to the OS and
// the next call faults every page in again: one-shot ML-DSA-87 signing at
// 148 KiB took 6,500 page faults and 1.4x the time in a bench run (see
// cpu/sign.cc, SignScratch). This binary replaces operator new to count the
// bytes live at once during a call, and holds every call under that line.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "cpu/mldsa.h"
#include "tests/core/backend_request.h"
#include "tests/core/test_keys.h"

namespace {

// Counted only while a test has switched counting on (one thread).
bool g_counting = false;
size_t g_live = 0, g_peak = 0;

void* counted(void* p) {
  if (!p) throw std::bad_alloc();
  if (g_counting) {
    g_live += malloc_usable_size(p);
    if (g_live > g_peak) g_peak = g_live;
  }
  return p;
}
void uncounted(void* p) {
  if (p && g_counting) g_live -= malloc_usable_size(p);
  std::free(p);
}
void* aligned(size_t n, std::align_val_t a) {
  const size_t al = static_cast<size_t>(a);
  return std::aligned_alloc(al, (n + al - 1) / al * al);
}

}  // namespace

void* operator new(size_t n) { return counted(std::malloc(n ? n : 1)); }
void* operator new[](size_t n) { return counted(std::malloc(n ? n : 1)); }
void* operator new(size_t n, std::align_val_t a) { return counted(aligned(n ? n : 1, a)); }
void* operator new[](size_t n, std::align_val_t a) { return counted(aligned(n ? n : 1, a)); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, size_t) noexcept { uncounted(p); }
void operator delete[](void* p, size_t) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { uncounted(p); }

namespace mldsa::test {
namespace {

constexpr size_t kTrimThreshold = 128 * 1024;

// The most bytes live at once while f runs (after a first, uncounted run, so
// lazily built tables are not counted).
template <class F>
size_t peak_of(F&& f) {
  f();
  g_live = g_peak = 0;
  g_counting = true;
  f();
  g_counting = false;
  EXPECT_EQ(g_live, 0u) << "memory a call kept";
  return g_peak;
}

class HeapBudget : public BackendTest {};

TEST_F(HeapBudget, SigningAndVerifyingStayUnderTheTrimThreshold) {
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    std::unique_ptr<PrivateKey> key = key_from_tag(p, 5);
    ASSERT_TRUE(key);
    const std::vector<uint8_t> sk(key->encoded().begin(), key->encoded().end());
    const std::vector<uint8_t> pk(key->public_key().encoded().begin(), key->public_key().encoded().end());
    const uint8_t msg[32] = {7};
    std::vector<uint8_t> sig(p.sig_bytes);

    const size_t one_shot = peak_of([&] {
      EXPECT_EQ(Status::ok, sign_encoded(p, sk, msg, {}, nullptr, sig.data()));
    });
    const size_t cached = peak_of([&] { EXPECT_EQ(Status::ok, sign(*key, msg, {}, nullptr, sig.data())); });
    const size_t verifying = peak_of([&] {
      std::unique_ptr<PublicKey> pub;
      EXPECT_EQ(Status::ok, PublicKey::decode(p, pk, pub));
      EXPECT_EQ(Status::ok, verify(*pub, msg, {}, sig));
    });
    const size_t one_shot_verify = peak_of([&] { EXPECT_EQ(Status::ok, verify_encoded(p, pk, msg, {}, sig)); });
    std::printf(
        "%s: one-shot sign %zu KiB, sign with a decoded key %zu KiB, decode + verify %zu KiB, one-shot verify %zu "
        "KiB\n",
        p.name, one_shot >> 10, cached >> 10, verifying >> 10, one_shot_verify >> 10);
    EXPECT_GT(one_shot, 0u) << "nothing counted: operator new is not this file's";
    EXPECT_LT(one_shot, kTrimThreshold) << p.name;
    EXPECT_LT(cached, kTrimThreshold) << p.name;
    EXPECT_LT(verifying, kTrimThreshold) << p.name;
    EXPECT_LT(one_shot_verify, kTrimThreshold) << p.name;
  }
}

}  // namespace
}  // namespace mldsa::test
