// check.cc - the reasons behind a malformed Falcon key or signature (check.h).
#include "cpu/falcon/check.h"

#include "cpu/ct.h"
#include "cpu/falcon/internal.h"

namespace falcon {

const char* problem_string(Problem p) {
  switch (p) {
    case Problem::none: return "ok";
    case Problem::bad_length: return "wrong length";
    case Problem::bad_header: return "wrong header byte";
    case Problem::malformed: return "malformed encoding";
    case Problem::trailing_bytes: return "bytes after the encoded value";
    case Problem::ntru_mismatch: return "F does not satisfy f G - g F = q";
  }
  return "unknown";
}

Problem check_signature(const Params& p, const uint8_t* sig, size_t len, SigFormat fmt) {
  if (sig == nullptr) return Problem::bad_length;
  const bool padded_len = len == p.sig_padded_bytes;
  if (len < 1 + NONCE_BYTES + 1 || (fmt == SigFormat::padded ? !padded_len : len > p.sig_max_bytes && !padded_len))
    return Problem::bad_length;
  if (sig[0] != 0x30 + p.logn) return Problem::bad_header;
  const uint8_t* val = sig + 1 + NONCE_BYTES;
  const size_t vlen = len - 1 - NONCE_BYTES;
  int16_t s2[MAX_N];
  const size_t used = comp_decode(s2, p.logn, val, vlen);
  if (used == 0) return Problem::malformed;
  for (size_t i = used; i < vlen; ++i)
    if (!padded_len || val[i] != 0) return Problem::trailing_bytes;
  return Problem::none;
}

Problem check_public_key(const Params& p, const uint8_t* pk, size_t len) {
  if (pk == nullptr || len != p.pk_bytes) return Problem::bad_length;
  if (pk[0] != p.logn) return Problem::bad_header;
  uint16_t h[MAX_N];
  return modq_decode(h, p.logn, pk + 1, len - 1) == len - 1 ? Problem::none : Problem::malformed;
}

namespace {

// r = a b mod x^n + 1 over the integers (|a|, |b| <= 128: the sums fit in 32 bits).
void negacyclic_mul(int32_t* r, const int8_t* a, const int8_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i) r[i] = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      const int32_t t = int32_t{a[i]} * b[j];
      const size_t k = i + j;
      if (k < n)  // public indices only
        r[k] += t;
      else
        r[k - n] -= t;
    }
}

}  // namespace

Problem check_private_key(const Params& p, const uint8_t* sk, size_t len) {
  if (sk == nullptr || len != p.sk_bytes) return Problem::bad_length;
  if (sk[0] != 0x50 + p.logn) return Problem::bad_header;
  struct Work {
    int8_t f[MAX_N], g[MAX_N], F[MAX_N], G[MAX_N];
    int32_t fG[MAX_N], gF[MAX_N];
    ~Work() { wipe(this, sizeof *this); }
  } w;
  size_t u = 1, v;
  if ((v = trim_i8_decode(w.f, p.logn, p.fg_bits, sk + u, len - u)) == 0) return Problem::malformed;
  u += v;
  if ((v = trim_i8_decode(w.g, p.logn, p.fg_bits, sk + u, len - u)) == 0) return Problem::malformed;
  u += v;
  if ((v = trim_i8_decode(w.F, p.logn, 8, sk + u, len - u)) == 0) return Problem::malformed;
  u += v;
  if (u != len) return Problem::trailing_bytes;
  // G out of range (or f not invertible) already means F is not f's and g's.
  if (!complete_private(w.G, w.f, w.g, w.F, p.logn)) return Problem::ntru_mismatch;
  negacyclic_mul(w.fG, w.f, w.G, p.n);
  negacyclic_mul(w.gF, w.g, w.F, p.n);
  uint32_t diff = static_cast<uint32_t>(w.fG[0] - w.gF[0]) ^ Q;
  for (size_t i = 1; i < p.n; ++i) diff |= static_cast<uint32_t>(w.fG[i] - w.gF[i]);
  return mldsa::declassify(diff == 0) ? Problem::none : Problem::ntru_mismatch;  // the verdict is public
}

}  // namespace falcon
