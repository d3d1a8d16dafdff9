// small_ntt.cc - the NTT over q' = 7681 for small products, portable: plain
// residues in 32-bit integers, reduced lazily (the vector versions reduce
// differently, in 16-bit lanes, and meet the same contract at the ends).
#include "cpu/small_ntt.h"

namespace mldsa {
namespace {

// Centred residue in [-(q'-1)/2, (q'-1)/2], without branches (the inputs are
// secret): % by a constant compiles to multiplications.
inline int32_t centre(int32_t a) {
  int32_t r = a % QS;                // (-q', q')
  r += QS & (r >> 31);               // [0, q')
  r -= QS & ((QS_HALF - r) >> 31);   // > (q'-1)/2 -> negative side
  return r;
}

// 256^-1 mod q'.
constexpr int32_t kInvN = static_cast<int32_t>(small_ntt_detail::powmod(N, QS - 2));
static_assert(kInvN * N % QS == 1);

}  // namespace

// Lazy: only products are reduced (to (-q', q')), so a layer adds less than
// q' and eight layers from |a_i| <= (q'-1)/2 stay below 2^16; products below
// 2^12 * 2^16.
void small_ntt_ref(SmallPoly* a_hat, const Poly* p) {
  int32_t a[N];
  for (int j = 0; j < N; ++j) a[j] = p->c[j];
  unsigned k = 0;
  for (unsigned len = 128; len > 0; len >>= 1) {
    for (unsigned start = 0; start < N; start += 2 * len) {
      const int32_t zeta = kZetasS[++k];
      for (unsigned j = start; j < start + len; ++j) {
        const int32_t t = zeta * a[j + len] % QS;
        a[j + len] = a[j] - t;
        a[j] = a[j] + t;
      }
    }
  }
  for (unsigned i = 0; i < N; ++i) a_hat->c[small_ntt_pos(i)] = static_cast<int16_t>(centre(a[i]));
}

// Lazy: sums double per layer, so they are reduced once after five layers;
// every |zeta * (a - b)| stays below 2^12 * 2^17.
void small_mul_ref(Poly* c, const SmallPoly* a_hat, const SmallPoly* b_hat) {
  int32_t a[N];
  for (unsigned i = 0; i < N; ++i) {
    const unsigned pos = small_ntt_pos(i);
    a[i] = int32_t{a_hat->c[pos]} * b_hat->c[pos] % QS;
  }
  // Gentleman-Sande butterflies undo the forward ones block by block.
  for (unsigned len = 1; len < N; len <<= 1) {
    for (unsigned start = 0; start < N; start += 2 * len) {
      const int32_t zeta = kZetasSInv[N / (2 * len) + start / (2 * len)];
      for (unsigned j = start; j < start + len; ++j) {
        const int32_t t = a[j];
        a[j] = t + a[j + len];
        a[j + len] = zeta * (t - a[j + len]) % QS;
      }
    }
    if (len == 16)
      for (int j = 0; j < N; ++j) a[j] %= QS;
  }
  for (int j = 0; j < N; ++j) c->c[j] = centre(kInvN * a[j]);
}

}  // namespace mldsa
