// ntt.cc - NTT / inverse NTT / pointwise products (FIPS 204 Section 7.5), portable.
#include "cpu/ntt.h"

namespace mldsa {
void ntt_ref(Poly* p) {
  int32_t* a = p->c;
  unsigned k = 0;
  for (unsigned len = 128; len > 0; len >>= 1) {
    for (unsigned start = 0; start < N; start += 2 * len) {
      const int64_t zeta = kZetas[++k];
      for (unsigned j = start; j < start + len; ++j) {
        const int32_t t = montgomery_reduce(zeta * a[j + len]);
        a[j + len] = a[j] - t;
        a[j] = a[j] + t;
      }
    }
  }
}

void invntt_tomont_ref(Poly* p) {
  int32_t* a = p->c;
  unsigned k = N;
  for (unsigned len = 1; len < N; len <<= 1) {
    for (unsigned start = 0; start < N; start += 2 * len) {
      const int64_t zeta = -kZetas[--k];
      for (unsigned j = start; j < start + len; ++j) {
        const int32_t t = a[j];
        a[j] = t + a[j + len];
        a[j + len] = montgomery_reduce(zeta * (t - a[j + len]));
      }
    }
  }
  for (unsigned j = 0; j < N; ++j) a[j] = montgomery_reduce(static_cast<int64_t>(kInvNMont) * a[j]);
}

void pointwise_acc_ref(Poly* c, const Poly* a, const Poly* b, unsigned n) {
  for (unsigned j = 0; j < N; ++j) c->c[j] = montgomery_reduce(static_cast<int64_t>(a[0].c[j]) * b[0].c[j]);
  for (unsigned i = 1; i < n; ++i)
    for (unsigned j = 0; j < N; ++j) c->c[j] += montgomery_reduce(static_cast<int64_t>(a[i].c[j]) * b[i].c[j]);
  // Sum of up to 8 terms each |x| < q: reduce back below q.
  for (unsigned j = 0; j < N; ++j) c->c[j] = reduce32(c->c[j]);
}

}  // namespace mldsa
