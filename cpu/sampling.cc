// sampling.cc - ExpandA, ExpandS, ExpandMask, SampleInBall (FIPS 204 Section 7.3).
#include "cpu/sampling.h"

#include <cstring>

#include "cpu/ct.h"
#include "cpu/mldsa.h"
#include "cpu/keccak.h"
#include "cpu/packing.h"

namespace mldsa {

// RejNTTPoly's inner step (Algorithm 30, CoeffFromThreeBytes / Algorithm 14).
// A^ is public, so the branch is fine.
unsigned rej_ntt_coeffs(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len) {
  for (size_t pos = 0; ctr < N && pos + 3 <= len; pos += 3) {
    const uint32_t t = buf[pos] | (uint32_t{buf[pos + 1]} << 8) | (static_cast<uint32_t>(buf[pos + 2] & 0x7F) << 16);
    if (t < static_cast<uint32_t>(Q)) a[ctr++] = static_cast<int32_t>(t);
  }
  return ctr;
}

// RejBoundedPoly's inner step (Algorithm 31, CoeffFromHalfByte / Algorithm 15).
// The candidates are secret; whether one is accepted says nothing about the
// accepted values, so only that bit is declassified (see ct.h).
unsigned rej_bounded_coeffs(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len, unsigned eta) {
  for (size_t pos = 0; ctr < N && pos < len; ++pos) {
    const uint32_t halves[2] = {buf[pos] & 0x0Fu, static_cast<uint32_t>(buf[pos] >> 4)};
    for (uint32_t b : halves) {
      if (ctr >= N) break;
      if (eta == 2) {
        if (declassify(b < 15)) {
          const uint32_t mod5 = b - ((205 * b) >> 10) * 5;  // b mod 5 for b < 15, no division
          a[ctr++] = 2 - static_cast<int32_t>(mod5);
        }
      } else {
        if (declassify(b < 9)) a[ctr++] = 4 - static_cast<int32_t>(b);
      }
    }
  }
  return ctr;
}

void expand_a_ref(Poly* A, const uint8_t rho[32], unsigned k, unsigned l) {
  uint8_t seed[34];
  std::memcpy(seed, rho, 32);
  uint8_t buf[5 * SHAKE128_RATE];
  for (unsigned i = 0; i < k; ++i) {
    for (unsigned j = 0; j < l; ++j) {
      seed[32] = static_cast<uint8_t>(j);
      seed[33] = static_cast<uint8_t>(i);
      Keccak h;
      h.init(SHAKE128_RATE);
      h.absorb(seed, sizeof seed);
      h.finalize(DS_SHAKE);
      h.squeeze_blocks(buf, 5);  // enough for 256 coefficients with high probability
      unsigned ctr = rej_ntt_coeffs(A[i * l + j].c, 0, buf, sizeof buf);
      while (ctr < N) {
        h.squeeze_blocks(buf, 1);
        ctr = rej_ntt_coeffs(A[i * l + j].c, ctr, buf, SHAKE128_RATE);
      }
    }
  }
}

void expand_s_ref(Poly* s, unsigned n, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce) {
  uint8_t seed[66];
  std::memcpy(seed, rhoprime, 64);
  uint8_t buf[2 * SHAKE256_RATE];
  for (unsigned i = 0; i < n; ++i) {
    const uint16_t r = static_cast<uint16_t>(nonce + i);
    seed[64] = static_cast<uint8_t>(r);
    seed[65] = static_cast<uint8_t>(r >> 8);
    Keccak h;
    h.init(SHAKE256_RATE);
    h.absorb(seed, sizeof seed);
    h.finalize(DS_SHAKE);
    h.squeeze_blocks(buf, 2);
    unsigned ctr = rej_bounded_coeffs(s[i].c, 0, buf, sizeof buf, eta);
    while (declassify(ctr < N)) {
      h.squeeze_blocks(buf, 1);
      ctr = rej_bounded_coeffs(s[i].c, ctr, buf, SHAKE256_RATE, eta);
    }
    h.wipe();
  }
  secure_zero(seed, sizeof seed);
  secure_zero(buf, sizeof buf);
}

void expand_mask_ref(Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits) {
  uint8_t seed[66];
  std::memcpy(seed, rhopp, 64);
  const size_t bytes = 32 * (gamma1_bits + 1);  // 32 * bitlen(2*gamma1 - 1)
  uint8_t buf[32 * 20];
  for (unsigned r = 0; r < l; ++r) {
    const uint16_t nonce = static_cast<uint16_t>(kappa + r);
    seed[64] = static_cast<uint8_t>(nonce);
    seed[65] = static_cast<uint8_t>(nonce >> 8);
    shake256(buf, bytes, seed, sizeof seed);
    unpack_z(&y[r], buf, gamma1_bits);
  }
  secure_zero(seed, sizeof seed);
  secure_zero(buf, sizeof buf);
}

void sample_in_ball(Poly* c, const uint8_t* ctilde, size_t ctilde_len, unsigned tau, const uint8_t* first) {
  // The stream H(c~) a block at a time; a given first block is the stream's
  // own, so the sponge is only started if more is needed, and then squeezes
  // past it.
  Keccak h;
  bool started = false;
  uint8_t block[SHAKE256_RATE];
  auto refill = [&] {
    if (!started) {
      h.init(SHAKE256_RATE);
      h.absorb(ctilde, ctilde_len);
      h.finalize(DS_SHAKE);
      started = true;
      if (first) h.squeeze(block, sizeof block);  // the first block again
    }
    h.squeeze(block, sizeof block);
  };
  if (first)
    std::memcpy(block, first, sizeof block);
  else
    refill();
  uint64_t signs = 0;
  for (int i = 0; i < 8; ++i) signs |= uint64_t{block[i]} << (8 * i);
  size_t pos = 8;
  std::memset(c->c, 0, sizeof c->c);
  for (unsigned i = N - tau; i < N; ++i) {
    uint8_t j;
    do {
      if (pos == sizeof block) {
        refill();
        pos = 0;
      }
      j = block[pos++];
    } while (j > i);
    c->c[i] = c->c[j];
    c->c[j] = 1 - 2 * static_cast<int32_t>(signs & 1);
    signs >>= 1;
  }
}

}  // namespace mldsa
