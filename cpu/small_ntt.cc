// small_ntt.cc - the NTT over q' = 7681 for small products, portable: the
// same 16-bit Montgomery / Barrett arithmetic and reduction points as the
// vector kernels, in the standard butterfly order (the compiler vectorises
// the long layers). Intermediates stay below 2^15 in magnitude; the bounds
// are those of cpu/avx2/small_ntt16.h.
#include "cpu/small_ntt.h"

namespace mldsa {
namespace {

struct Twiddles {
  int16_t z[N], zq[N];
};
constexpr Twiddles make_twiddles(const std::array<int16_t, N>& plain) {
  Twiddles t{};
  for (int k = 0; k < N; ++k) {
    const SmallTwiddle w = small_twiddle(plain[k]);
    t.z[k] = w.z;
    t.zq[k] = w.zq;
  }
  return t;
}
constexpr Twiddles kFwd = make_twiddles(kZetasS);
constexpr Twiddles kInv = make_twiddles(kZetasSInv);

inline int16_t add(int16_t a, int16_t b) { return static_cast<int16_t>(a + b); }
inline int16_t sub(int16_t a, int16_t b) { return static_cast<int16_t>(a - b); }

// Forward layers len..last (len halving), block index k as in FIPS 204 Algorithm 41.
void fwd_layers(int16_t* a, unsigned len, unsigned last) {
  for (; len >= last; len >>= 1)
    for (unsigned start = 0; start < N; start += 2 * len) {
      const unsigned k = N / (2 * len) + start / (2 * len);
      const int16_t z = kFwd.z[k], zq = kFwd.zq[k];
      for (unsigned j = start; j < start + len; ++j) {
        const int16_t t = small_montmul(a[j + len], z, zq);
        a[j + len] = sub(a[j], t);
        a[j] = add(a[j], t);
      }
    }
}
// Gentleman-Sande layers len..last (len doubling), undoing the forward ones.
void inv_layers(int16_t* a, unsigned len, unsigned last) {
  for (; len <= last; len <<= 1)
    for (unsigned start = 0; start < N; start += 2 * len) {
      const unsigned k = N / (2 * len) + start / (2 * len);
      const int16_t z = kInv.z[k], zq = kInv.zq[k];
      for (unsigned j = start; j < start + len; ++j) {
        const int16_t d = sub(a[j], a[j + len]);
        a[j] = add(a[j], a[j + len]);
        a[j + len] = small_montmul(d, z, zq);
      }
    }
}
void barrett_all(int16_t* a) {
  for (int j = 0; j < N; ++j) a[j] = small_barrett(a[j]);
}

}  // namespace

void small_ntt_ref(SmallPoly* a_hat, const Poly* p) {
  int16_t a[N];
  for (int j = 0; j < N; ++j) a[j] = static_cast<int16_t>(p->c[j]);
  fwd_layers(a, 128, 16);  // |x| < 21600 from |x| <= 3840
  barrett_all(a);
  fwd_layers(a, 8, 1);
  barrett_all(a);  // centred
  for (unsigned i = 0; i < N; ++i) a_hat->c[small_ntt_pos(i)] = a[i];
}

void small_mul_ref(Poly* c, const SmallPoly* a_hat, const SmallPoly* b_hat) {
  int16_t a[N];
  for (unsigned i = 0; i < N; ++i) {
    const unsigned pos = small_ntt_pos(i);
    const int16_t y = b_hat->c[pos];
    a[i] = small_montmul(a_hat->c[pos], y, static_cast<int16_t>(y * kQSInv));  // |x| < 4067
  }
  inv_layers(a, 1, 4);  // < 32536
  barrett_all(a);
  inv_layers(a, 8, 32);  // <= 30720
  barrett_all(a);
  inv_layers(a, 64, 64);  // <= 7680
  for (unsigned j = 0; j < N / 2; ++j) {  // len 128 with the scale
    const int16_t d = sub(a[j], a[j + 128]);
    a[j] = small_montmul(add(a[j], a[j + 128]), kSmallScale.z, kSmallScale.zq);
    a[j + 128] = small_montmul(d, kSmallScaleZ1.z, kSmallScaleZ1.zq);
  }
  for (int j = 0; j < N; ++j) c->c[j] = small_barrett(a[j]);  // centred: exact
}

}  // namespace mldsa
