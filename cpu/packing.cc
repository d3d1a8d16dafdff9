// packing.cc - FIPS 204 Algorithms 16-28 (bit packing and encodings).
#include "cpu/packing.h"

#include <cstring>

#include "cpu/backend.h"
#include "cpu/ct.h"

namespace mldsa {

// 256 coefficients of `bits` bits fill exactly 8 * bits 32-bit words, so both
// loops move whole little-endian words (bits <= 20 keeps the accumulator
// under 64 bits); the word boundaries depend only on `bits`, never on data.
namespace {
inline void store32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t load32(const uint8_t* p) {
  return p[0] | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
}  // namespace

void pack_bits(uint8_t* out, const Poly* a, unsigned bits, int32_t offset, bool negate) {
  uint64_t acc = 0;
  unsigned have = 0;
  const uint32_t mask = (1u << bits) - 1;
  for (int i = 0; i < N; ++i) {
    const int32_t v = negate ? offset - a->c[i] : a->c[i] + offset;
    acc |= static_cast<uint64_t>(static_cast<uint32_t>(v) & mask) << have;
    have += bits;
    if (have >= 32) {
      store32(out, static_cast<uint32_t>(acc));
      out += 4;
      acc >>= 32;
      have -= 32;
    }
  }
}

void unpack_bits(Poly* a, const uint8_t* in, unsigned bits, int32_t offset, bool negate) {
  uint64_t acc = 0;
  unsigned have = 0;
  const uint32_t mask = (1u << bits) - 1;
  for (int i = 0; i < N; ++i) {
    if (have < bits) {
      acc |= static_cast<uint64_t>(load32(in)) << have;
      in += 4;
      have += 32;
    }
    const int32_t v = static_cast<int32_t>(acc & mask);
    acc >>= bits;
    have -= bits;
    a->c[i] = negate ? offset - v : v - offset;
  }
}

void unpack_z(Poly* z, const uint8_t* in, unsigned gamma1_bits) {
  unpack_bits(z, in, gamma1_bits + 1, int32_t{1} << gamma1_bits, true);
}

unsigned hint_positions(uint8_t* pos, const Poly* h) {
  unsigned n = 0;
  for (int j = 0; j < N; ++j)
    if (h->c[j] != 0) pos[n++] = static_cast<uint8_t>(j);
  return n;
}

void pack_w1(uint8_t* out, const Poly* w1, int32_t gamma2) {
  pack_bits(out, w1, gamma2 == (Q - 1) / 88 ? 6 : 4, 0, false);
}

namespace {
unsigned eta_bits(unsigned eta) { return eta == 2 ? 3 : 4; }
}  // namespace

void pk_encode_t1_row(uint8_t* pk, unsigned i, const Poly* t1_i) {
  backend().pack_bits(pk + 32 + i * T1_BYTES, t1_i, 10, 0, false);
}

void pk_encode(uint8_t* pk, const Params& p, const uint8_t rho[32], const Poly* t1) {
  std::memcpy(pk, rho, 32);
  for (unsigned i = 0; i < p.k; ++i) pk_encode_t1_row(pk, i, &t1[i]);
}

void pk_decode(const Params& p, const uint8_t* pk, uint8_t rho[32], Poly* t1) {
  std::memcpy(rho, pk, 32);
  const Backend& be = backend();
  for (unsigned i = 0; i < p.k; ++i) be.unpack_bits(&t1[i], pk + 32 + i * T1_BYTES, 10, 0, false);
}

void sk_encode(uint8_t* sk, const Params& p, const uint8_t rho[32], const uint8_t K[32], const uint8_t* tr,
               const Poly* s1, const Poly* s2, const Poly* t0) {
  std::memcpy(sk, rho, 32);
  std::memcpy(sk + 32, K, 32);
  std::memcpy(sk + 64, tr, p.tr_bytes);
  uint8_t* q = sk + 64 + p.tr_bytes;
  const size_t eb = eta_bytes(p.eta);
  const Backend& be = backend();
  for (unsigned i = 0; i < p.l; ++i, q += eb) be.pack_bits(q, &s1[i], eta_bits(p.eta), p.eta, true);
  for (unsigned i = 0; i < p.k; ++i, q += eb) be.pack_bits(q, &s2[i], eta_bits(p.eta), p.eta, true);
  for (unsigned i = 0; i < p.k; ++i, q += T0_BYTES) be.pack_bits(q, &t0[i], 13, 1 << (D - 1), true);
}

Status sk_decode(const Params& p, const uint8_t* sk, uint8_t rho[32], uint8_t K[32], uint8_t* tr, Poly* s1,
                 Poly* s2, Poly* t0) {
  std::memcpy(rho, sk, 32);
  std::memcpy(K, sk + 32, 32);
  std::memcpy(tr, sk + 64, p.tr_bytes);
  const uint8_t* q = sk + 64 + p.tr_bytes;
  const size_t eb = eta_bytes(p.eta);
  const Backend& be = backend();
  // An eta-packed field holds eta - s in 3 or 4 bits, so s <= eta always;
  // packed values above 2*eta (s < -eta) are out of range, which is exactly
  // |s| >= eta + 1. The verdict is collected without branching on secrets.
  const int32_t bound = static_cast<int32_t>(p.eta) + 1;
  uint32_t bad1 = 0, bad2 = 0;
  for (unsigned i = 0; i < p.l; ++i, q += eb) {
    be.unpack_bits(&s1[i], q, eta_bits(p.eta), p.eta, true);
    bad1 |= be.exceeds(&s1[i], bound);
  }
  for (unsigned i = 0; i < p.k; ++i, q += eb) {
    be.unpack_bits(&s2[i], q, eta_bits(p.eta), p.eta, true);
    bad2 |= be.exceeds(&s2[i], bound);
  }
  for (unsigned i = 0; i < p.k; ++i, q += T0_BYTES) be.unpack_bits(&t0[i], q, 13, 1 << (D - 1), true);
  if (declassify(bad1)) return Status::sk_s1_out_of_range;
  if (declassify(bad2)) return Status::sk_s2_out_of_range;
  return Status::ok;
}

void sig_encode(uint8_t* sig, const Params& p, const uint8_t* ctilde, const Poly* z, const Poly* h) {
  const size_t ct_len = p.ctilde_bytes;
  std::memcpy(sig, ctilde, ct_len);
  uint8_t* q = sig + ct_len;
  const size_t zb = z_bytes(p.gamma1_bits);
  const Backend& be = backend();
  for (unsigned i = 0; i < p.l; ++i, q += zb) be.pack_bits(q, &z[i], p.gamma1_bits + 1, p.gamma1, true);
  // HintBitPack (Algorithm 20): positions of the ones, then running counts.
  // The signer guarantees at most omega ones.
  std::memset(q, 0, p.omega + p.k);
  unsigned idx = 0;
  uint8_t pos[N + 16];
  for (unsigned i = 0; i < p.k; ++i) {
    const unsigned n = be.hint_positions(pos, &h[i]);
    std::memcpy(q + idx, pos, n);
    idx += n;
    q[p.omega + i] = static_cast<uint8_t>(idx);
  }
}

Status sig_decode(const Params& p, const uint8_t* sig, const uint8_t** ctilde, Poly* z, Poly* h) {
  const size_t ct_len = p.ctilde_bytes;
  *ctilde = sig;
  const uint8_t* q = sig + ct_len;
  const size_t zb = z_bytes(p.gamma1_bits);
  const Backend& be = backend();
  for (unsigned i = 0; i < p.l; ++i, q += zb) be.unpack_bits(&z[i], q, p.gamma1_bits + 1, p.gamma1, true);
  // HintBitUnpack (Algorithm 21) with its malformed-input checks.
  unsigned idx = 0;
  for (unsigned i = 0; i < p.k; ++i) {
    std::memset(h[i].c, 0, sizeof h[i].c);
    const unsigned end = q[p.omega + i];
    if (end < idx || end > p.omega) return Status::sig_malformed_hint;
    const unsigned first = idx;
    for (; idx < end; ++idx) {
      if (idx > first && q[idx - 1] >= q[idx]) return Status::sig_malformed_hint;
      h[i].c[q[idx]] = 1;
    }
  }
  for (unsigned j = idx; j < p.omega; ++j)
    if (q[j] != 0) return Status::sig_malformed_hint;
  return Status::ok;
}

}  // namespace mldsa
