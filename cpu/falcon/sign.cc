// sign.cc - Falcon signing (specification section 3.9: hash to point, the
// fast Fourier sampler over the Gram matrix of the secret basis, the norm
// check, compression) and verification (section 3.10).
#include <cmath>
#include <cstring>
#include <memory>

#include "cpu/ct.h"
#include "cpu/falcon/internal.h"
#include "cpu/falcon/simd.h"

namespace falcon {
namespace {

// ffSampling (specification Algorithm 11) with the LDL tree computed on the
// fly: z = (t0, t1) replaced by the sampled vector. g00, g01, g11 (the Gram
// matrix) are destroyed. tmp: 5n doubles.
//
// Iterative rather than recursive (no call stack, no heap), so that the same
// code can run as one GPU thread's task: the node at level L (n_L =
// 2^L values) keeps its children's operands in its own tmp (a: the halves of
// a self-adjoint d and a copy of the first, 1.5 n_L; u: the halves of a
// target, n_L; then the child's tmp), so every node's buffers follow from
// the level alone. The walk needs only the current level and one stage per
// level (0: entering, 1: first child (z1) done, 2: second child (z0) done);
// the order of its steps depends on logn only, never on the values.
void ff_sampling(SamplerCtx& sc, double* t0, double* t1, double* g00, double* g01, double* g11,
                 double inv_sigma, unsigned logn, double* tmp) {
  struct Node {
    double *t0, *t1, *g00, *g01, *g11, *tmp;
  };
  Node node[MAX_LOGN + 1];
  uint8_t stage[MAX_LOGN + 1];
  const Kernels& k = *sc.k;
  node[logn] = {t0, t1, g00, g01, g11, tmp};
  for (unsigned L = logn; L > 0; --L) {
    const size_t n = size_t{1} << L, hn = n / 2;
    double* a = node[L].tmp;
    double* u = a + n + hn;
    node[L - 1] = {u, u + hn, a, a + hn, a + n, u + n};
  }
  unsigned L = logn;
  stage[L] = 0;
  for (;;) {
    const Node& c = node[L];
    if (L == 0) {
      // The leaf's sigma' = sigma / sqrt(g00); the sampler takes 1 / sigma'.
      const double leaf = std::sqrt(c.g00[0]) * inv_sigma;
      c.t0[0] = static_cast<double>(sampler_z(sc, c.t0[0], leaf));
      c.t1[0] = static_cast<double>(sampler_z(sc, c.t1[0], leaf));
      if (logn == 0) return;
      L = 1;
      continue;
    }
    const size_t n = size_t{1} << L, hn = n / 2;
    double* a = c.tmp;
    double* u = a + n + hn;
    switch (stage[L]) {
      case 0:  // z1 from t1 over d11
        k.poly_ldl_fft(c.g00, c.g01, c.g11, L);  // g01 = l10, g11 = d11
        k.split_fft(a, a + hn, c.g11, L);
        std::memcpy(a + n, a, hn * sizeof(double));
        k.split_fft(u, u + hn, c.t1, L);
        break;
      case 1:  // t0 += (t1 - z1) l10, t1 = z1; then z0 from t0 over d00
        k.merge_fft(c.g11, u, u + hn, L);  // g11 now holds z1
        std::memcpy(a, c.t1, n * sizeof(double));
        poly_sub(a, c.g11, L);
        k.poly_mul_fft(a, c.g01, L);
        poly_add(c.t0, a, L);
        std::memcpy(c.t1, c.g11, n * sizeof(double));
        k.split_fft(a, a + hn, c.g00, L);
        std::memcpy(a + n, a, hn * sizeof(double));
        k.split_fft(u, u + hn, c.t0, L);
        break;
      default:  // z0 done
        k.merge_fft(c.t0, u, u + hn, L);
        if (L == logn) return;
        ++L;
        continue;
    }
    ++stage[L];
    --L;
    stage[L] = 0;
  }
}

struct SecretKey {
  int8_t f[MAX_N], g[MAX_N], F[MAX_N], G[MAX_N];
  ~SecretKey() { wipe(this, sizeof *this); }
};

bool decode_sk(const Params& p, const uint8_t* sk, SecretKey& k) {
  if (sk[0] != 0x50 + p.logn) return false;
  size_t u = 1, v;
  if ((v = trim_i8_decode(k.f, p.logn, p.fg_bits, sk + u, p.sk_bytes - u)) == 0) return false;
  u += v;
  if ((v = trim_i8_decode(k.g, p.logn, p.fg_bits, sk + u, p.sk_bytes - u)) == 0) return false;
  u += v;
  if ((v = trim_i8_decode(k.F, p.logn, 8, sk + u, p.sk_bytes - u)) == 0) return false;
  u += v;
  return u == p.sk_bytes;
}

void small_to_fft(double* r, const int8_t* x, unsigned logn) {
  for (size_t i = 0, n = size_t{1} << logn; i < n; ++i) r[i] = x[i];
  fft(r, logn);
}

// One try: s2 from hm, or false when (s1, s2) is too long.
bool sign_once(const Params& p, SamplerCtx& sc, const SecretKey& k, const uint16_t* hm, int16_t* s2,
               double* w) {
  const unsigned logn = p.logn;
  const size_t n = p.n;
  double *b00 = w, *b01 = w + n, *b10 = w + 2 * n, *b11 = w + 3 * n;
  double *g00 = w + 4 * n, *g01 = w + 5 * n, *g11 = w + 6 * n, *t0 = w + 7 * n, *t1 = w + 8 * n;
  double *x = w + 9 * n, *tmp = w + 10 * n;  // tmp: 5n
  // The basis B = [[g, -f], [G, -F]] and its Gram matrix B B*.
  small_to_fft(b00, k.g, logn);
  small_to_fft(b01, k.f, logn);
  poly_neg(b01, logn);
  small_to_fft(b10, k.G, logn);
  small_to_fft(b11, k.F, logn);
  poly_neg(b11, logn);
  std::memcpy(g00, b00, n * sizeof(double));
  poly_mulselfadj_fft(g00, logn);
  std::memcpy(x, b01, n * sizeof(double));
  poly_mulselfadj_fft(x, logn);
  poly_add(g00, x, logn);
  std::memcpy(g01, b00, n * sizeof(double));
  poly_muladj_fft(g01, b10, logn);
  std::memcpy(x, b01, n * sizeof(double));
  poly_muladj_fft(x, b11, logn);
  poly_add(g01, x, logn);
  std::memcpy(g11, b10, n * sizeof(double));
  poly_mulselfadj_fft(g11, logn);
  std::memcpy(x, b11, n * sizeof(double));
  poly_mulselfadj_fft(x, logn);
  poly_add(g11, x, logn);
  // The target t = (hm, 0) B^-1 = (hm (-F) / q, hm f / q).
  for (size_t i = 0; i < n; ++i) t0[i] = hm[i];
  fft(t0, logn);
  std::memcpy(t1, t0, n * sizeof(double));
  poly_mul_fft(t1, b01, logn);
  poly_mulconst(t1, -1.0 / Q, logn);
  poly_mul_fft(t0, b11, logn);
  poly_mulconst(t0, 1.0 / Q, logn);

  ff_sampling(sc, t0, t1, g00, g01, g11, p.inv_sigma, logn, tmp);

  // s1 = hm - (z0 g + z1 G), s2 = -(z0 (-f) + z1 (-F)).
  std::memcpy(x, t0, n * sizeof(double));
  poly_mul_fft(x, b00, logn);
  std::memcpy(g00, t1, n * sizeof(double));
  poly_mul_fft(g00, b10, logn);
  poly_add(x, g00, logn);
  poly_mul_fft(t0, b01, logn);
  poly_mul_fft(t1, b11, logn);
  poly_add(t1, t0, logn);
  ifft(x, logn);
  ifft(t1, logn);
  int16_t s1[MAX_N];
  for (size_t i = 0; i < n; ++i) {
    s1[i] = static_cast<int16_t>(static_cast<int32_t>(hm[i]) - static_cast<int32_t>(fpr_rint(x[i])));
    s2[i] = static_cast<int16_t>(-fpr_rint(t1[i]));
  }
  // The norm check's verdict is public (a restart draws a fresh sample, as
  // the specification's signing loop does). An accepted s2 is the signature
  // value and is published: the encoder may branch on it. (One that then does
  // not fit the format is drawn again; its length is all that shows, and that
  // happens with negligible probability.)
  const bool ok = mldsa::declassify(is_short(s1, s2, logn, p.l2bound));
  if (ok) mldsa::declassify_bytes(s2, n * sizeof *s2);
  wipe(s1, sizeof s1);
  return ok;
}

}  // namespace

void hash_to_point(uint16_t* hm, const uint8_t nonce[NONCE_BYTES], const uint8_t* msg, size_t msglen,
                   unsigned logn) {
  mldsa::Keccak k;
  k.init(mldsa::SHAKE256_RATE);
  k.absorb(nonce, NONCE_BYTES);
  k.absorb(msg, msglen);
  k.finalize(mldsa::DS_SHAKE);
  uint8_t buf[mldsa::SHAKE256_RATE];
  size_t pos = sizeof buf;
  for (size_t i = 0, n = size_t{1} << logn; i < n;) {
    if (pos == sizeof buf) {
      k.squeeze(buf, sizeof buf);
      pos = 0;
    }
    const uint32_t w = uint32_t{buf[pos]} << 8 | buf[pos + 1];
    pos += 2;
    if (w < 5 * Q) hm[i++] = static_cast<uint16_t>(w % Q);
  }
}

bool sign(const Params& p, const uint8_t* sk, const uint8_t* msg, size_t msglen,
          const uint8_t nonce[NONCE_BYTES], const uint8_t seed[SEED_BYTES], SigFormat fmt, uint8_t* sig,
          size_t* siglen) {
  SecretKey k;
  if (!decode_sk(p, sk, k) || !complete_private(k.G, k.f, k.g, k.F, p.logn)) return false;
  uint16_t hm[MAX_N];
  hash_to_point(hm, nonce, msg, msglen, p.logn);

  mldsa::Keccak rng;
  rng.init(mldsa::SHAKE256_RATE);
  rng.absorb(seed, SEED_BYTES);
  rng.finalize(mldsa::DS_SHAKE);
  const size_t wlen = 15 * p.n;
  std::unique_ptr<double[]> w(new double[wlen]);
  SamplerCtx sc;
  sc.sigma_min = p.sigma_min;
  sc.k = &kernels();
  int16_t s2[MAX_N];
  const size_t cap = (fmt == SigFormat::padded ? p.sig_padded_bytes : p.sig_max_bytes) - 1 - NONCE_BYTES;
  size_t v = 0;
  while (v == 0) {  // a signature that does not fit is drawn again
    do sc.prng.init(rng);
    while (!sign_once(p, sc, k, hm, s2, w.get()));
    v = comp_encode(sig + 1 + NONCE_BYTES, cap, s2, p.logn);
  }
  sig[0] = static_cast<uint8_t>(0x30 + p.logn);
  std::memcpy(sig + 1, nonce, NONCE_BYTES);
  if (fmt == SigFormat::padded) {
    std::memset(sig + 1 + NONCE_BYTES + v, 0, cap - v);
    v = cap;
  }
  *siglen = 1 + NONCE_BYTES + v;
  sc.prng.wipe();
  rng.wipe();
  wipe(w.get(), wlen * sizeof(double));
  return true;
}

bool verify(const Params& p, const uint8_t* pk, const uint8_t* msg, size_t msglen, const uint8_t* sig,
            size_t siglen, SigFormat fmt) {
  if (pk == nullptr || sig == nullptr || (msg == nullptr && msglen != 0)) return false;
  if (pk[0] != p.logn) return false;
  uint16_t h[MAX_N], hm[MAX_N];
  if (modq_decode(h, p.logn, pk + 1, p.pk_bytes - 1) == 0) return false;
  if (siglen < 1 + NONCE_BYTES + 1 || sig[0] != 0x30 + p.logn) return false;
  if (fmt == SigFormat::padded ? siglen != p.sig_padded_bytes
                               : siglen > p.sig_max_bytes && siglen != p.sig_padded_bytes)
    return false;
  const uint8_t* val = sig + 1 + NONCE_BYTES;
  const size_t vlen = siglen - 1 - NONCE_BYTES;
  int16_t s1[MAX_N], s2[MAX_N];
  const size_t v = comp_decode(s2, p.logn, val, vlen);
  if (v == 0) return false;
  if (v != vlen) {  // only the padded length may carry (zero) padding
    if (siglen != p.sig_padded_bytes) return false;
    for (size_t i = v; i < vlen; ++i)
      if (val[i] != 0) return false;
  }
  hash_to_point(hm, sig + 1, msg, msglen, p.logn);
  mq_s1(s1, hm, s2, h, p.logn);
  return is_short(s1, s2, p.logn, p.l2bound);
}

bool public_from_private(const Params& p, const uint8_t* sk, uint8_t* pk) {
  SecretKey k;
  uint16_t h[MAX_N];
  if (!decode_sk(p, sk, k) || !mq_div(h, k.g, k.f, p.logn)) return false;
  mldsa::declassify_bytes(h, p.n * sizeof *h);  // h = g / f is the public key
  pk[0] = static_cast<uint8_t>(p.logn);
  return modq_encode(pk + 1, p.pk_bytes - 1, h, p.logn) == p.pk_bytes - 1;
}

}  // namespace falcon
