// backend.h - the seam between the FIPS 204 algorithms and the hot kernels.
//
// Each backend (ref here, cpu/avx2/, cpu/avx512/, cpu/neon/) fills one table. All
// backends must give bit-identical results: coefficient order and ranges
// below are part of the contract. Polynomials in the NTT domain are in the
// standard bit-reversed order of FIPS 204 Algorithm 41.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "cpu/poly.h"
#include "cpu/small_ntt.h"

namespace mldsa {

// The hashes Backend::expand_a_hash runs beside ExpandA, one after another,
// each on one lane of its permutations. A job's message may be written while
// A^ is expanded (KeyGen's pk = rho || t1, where row i of t1 needs row i of
// A^; Verify's mu || w1Encode(w1')).
class LaneHashes {
 public:
  virtual ~LaneHashes() = default;
  struct Job {
    const uint8_t* msg;  // out = SHAKE256(msg, out_len)
    size_t msg_len;
    uint8_t* out;
    size_t out_len;
  };
  // The next hash into job; false when there is none. Called at the start
  // and each time the previous job's digest is in its out.
  virtual bool next(Job& job) = 0;
  // Rows 0..n-1 of A^ are final; called for n = 1, ..., k in turn.
  virtual void rows_done(unsigned n) { (void)n; }
  // How many of job's first message bytes are ready: all of them once every
  // row of A^ is done.
  virtual size_t ready(const Job& job) { return job.msg_len; }
  // KeyGen's ExpandS in the same lanes: s[i] = RejBoundedPoly(rho' || i),
  // i < l + k (s1 then s2); row i then counts as done only once s1 and
  // s2[i] are too (t's row i needs them). Null: A^ alone.
  struct Secrets {
    Poly* s;
    const uint8_t* rhoprime;  // 64 bytes
    unsigned eta;
  };
  virtual const Secrets* secrets() { return nullptr; }
};

// One hash of a message that is all there.
class OneLaneHash final : public LaneHashes {
 public:
  OneLaneHash(const uint8_t* msg, size_t msg_len, uint8_t* out, size_t out_len)
      : job_{msg, msg_len, out, out_len} {}
  bool next(Job& job) override {
    if (given_) return false;
    given_ = true;
    job = job_;
    return true;
  }

 private:
  Job job_;
  bool given_ = false;
};

// Signing's masks as a stream, with its challenge hashes computed beside
// them in the same multi-way permutations (Backend::mask_hash).
class MaskHash {
 public:
  virtual ~MaskHash() = default;
  // The next n masks: y[i] = ExpandMask's polynomial for the next nonce, the
  // nonces counting up from 0 over all calls (Algorithm 7's kappa + r).
  virtual void take(Poly* y, unsigned n) = 0;
  // out = SHAKE256(msg, out_len), out_len <= 64, while masks are drawn beside
  // it; with ball non-null, also SampleInBall's first block: the first
  // SHAKE256_RATE bytes of SHAKE256(out), one more permutation of the lanes.
  virtual void hash(const uint8_t* msg, size_t msg_len, uint8_t* out, size_t out_len, uint8_t* ball) = 0;
};

struct Backend {
  const char* name;

  // Keccak-f[1600] on one state, and on four independent states.
  void (*keccakf1600)(uint64_t s[25]);
  void (*keccakf1600x4)(uint64_t s[4][25]);

  // Forward NTT (Algorithm 41). In: |a_i| < q. Out: |a_i| < 9q.
  void (*ntt)(Poly* a);
  // Inverse NTT (Algorithm 42) times the Montgomery factor 2^32.
  // In: |a_i| < q (after pointwise products). Out: |a_i| < q.
  void (*invntt_tomont)(Poly* a);
  // c = sum_{i<n} a[i] o b[i] * 2^-32 (pointwise, Montgomery), 1 <= n <= 8.
  // Inputs |x| < 9q for a, |x| < q for b; out |c_i| < q. The one exception
  // to bit-identical results: c is the sum's residue, but which representative
  // in (-q, q) is the backend's (a reduction per term or one of the 64-bit
  // sum), so it and the inverse NTT of it agree across backends modulo q only.
  // Every consumer reduces: caddq before Decompose and UseHint, freeze in
  // Power2Round, and reduce32 of c*t0, whose true value is below 2^18.
  void (*pointwise_acc)(Poly* c, const Poly* a, const Poly* b, unsigned n);

  // Products of small polynomials over q' = 7681, in the NTT' domain whose
  // order and ranges cpu/small_ntt.h fixes. small_ntt: in |a_i| <= (q'-1)/2
  // (s1, s2, c). small_mul: c = NTT'^-1(a_hat o b_hat), centred mod q' (the
  // exact c*s, |c_i| <= tau*eta <= 196, for signing's products).
  void (*small_ntt)(SmallPoly* a_hat, const Poly* a);
  void (*small_mul)(Poly* c, const SmallPoly* a_hat, const SmallPoly* b_hat);

  // ExpandA (Algorithm 32): A^[i*l + j] = RejNTTPoly(rho || j || i), in [0, q).
  void (*expand_a)(Poly* A, const uint8_t rho[32], unsigned k, unsigned l);
  // ExpandS (Algorithm 33) part: s[i] = RejBoundedPoly(rho' || (nonce+i) as 2 bytes),
  // coefficients in [-eta, eta].
  void (*expand_s)(Poly* s, unsigned n, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce);
  // ExpandMask (Algorithm 34): y[r] from H(rho'' || kappa + r), r < l.
  void (*expand_mask)(Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits);

  // Sign's w row (lines 13-15 of Algorithm 7): a in [0, q) -> a1, centred a0
  // (as poly_decompose) and w1Encode(a1) into w1enc (as pack_w1).
  void (*decompose_w1)(Poly* a1, Poly* a0, uint8_t* w1enc, const Poly* a, int32_t gamma2);
  // Verify's w' row (lines 10 and 12 of Algorithm 8): a in [0, q), hint bits
  // h in {0, 1} -> w1Encode(UseHint(h, a)) into w1enc (as poly_use_hint +
  // pack_w1). Public data.
  void (*use_hint_w1)(uint8_t* w1enc, const Poly* a, const Poly* h, int32_t gamma2);

  // SimpleBitPack / BitPack (Algorithms 16-19) of one polynomial, as
  // pack_bits / unpack_bits in packing.h: |a_i| <= 2^30, bits <= 20 (the
  // vector backends speed up the widths FIPS 204 uses: 3, 4, 10, 13, 18, 20).
  void (*pack_bits)(uint8_t* out, const Poly* a, unsigned bits, int32_t offset, bool negate);
  void (*unpack_bits)(Poly* a, const uint8_t* in, unsigned bits, int32_t offset, bool negate);

  // The infinity-norm checks, constant time: all-ones if some |c_i| >= bound,
  // else 0 (0 < bound <= q; |c_i| < 2^31 - q).
  uint32_t (*exceeds)(const Poly* a, int32_t bound);
  // Sign's fused steps: c = reduce32(a + b) (reduce32(a) when b is null) or
  // c = reduce32(a - b), then the check above on c. |a_i| + |b_i| < 2^31 -
  // 2^22 (reduce32's range); c may alias a or b.
  uint32_t (*add_reduce_exceeds)(Poly* c, const Poly* a, const Poly* b, int32_t bound);
  uint32_t (*sub_reduce_exceeds)(Poly* c, const Poly* a, const Poly* b, int32_t bound);
  // MakeHint (Algorithm 39, the signer's shortcut of Algorithm 7 line 26) from
  // the low part r0 + ct0 and w1: hint bits in {0, 1} into h, returns their
  // number. Constant time. |r0_i + ct0_i| < 2^31.
  unsigned (*make_hint)(Poly* h, const Poly* r0, const Poly* ct0, const Poly* w1, int32_t gamma2);
  // a_i += q where a_i < 0 (invNTT output -> [0, q)).
  void (*caddq)(Poly* a);
  // HintBitPack's positions (Algorithm 20 line 5): the indices j with
  // h_j != 0, ascending, into pos (room for N + 16 bytes); returns their
  // number. h is public (the accepted signature's hint).
  unsigned (*hint_positions)(uint8_t* pos, const Poly* h);
  // KeyGen's t = NTT^-1(A^ s1^) + s2, then Power2Round (Algorithm 6 lines
  // 5-6): t in (-q, q) from the inverse NTT, |s2_i| <= 4.
  void (*power2round)(Poly* t1, Poly* t0, const Poly* t, const Poly* s2);

  // Signing attempts run as a group, per shape (ML-DSA-44 and Dilithium2, -65
  // and Dilithium3, -87 and Dilithium5;
  // 1 to 3, see cpu/sign.cc): measured per backend, since grouping pays only
  // where a 4- or 8-way Keccak permutation costs about a single one.
  uint8_t sign_group[3];

  // ExpandA plus the hashes of LaneHashes, which ride in the lanes of
  // ExpandA's permutations (PublicKey::decode's tr = H(pk); KeyGen's; the
  // three of verify_encoded). Null where that was not measured to win: the
  // caller then runs expand_a and the hashes one after the other (same
  // results).
  void (*expand_a_hash)(Poly* A, const uint8_t rho[32], unsigned k, unsigned l, LaneHashes& hashes);
  // Per shape as sign_group: 1 where verify_encoded runs all its hashes in
  // expand_a_hash's lanes, 0 where it decodes the pk (tr in the lanes) and
  // then verifies (measured; needs expand_a_hash).
  uint8_t verify_lanes_shapes[3];
  // Likewise for KeyGen: 1 where it hashes pk in expand_a_hash's lanes (row
  // by row as A^ is done), 2 where ExpandS's s1 and s2 are drawn in those
  // lanes too (LaneHashes::secrets), 0 where it draws s, expands A^ and then
  // hashes pk alone.
  uint8_t keygen_lanes_shapes[3];

  // ExpandMask's polynomials per permutation: a call for n of them costs what
  // one for n rounded up to a multiple of this does, so signing draws the
  // rounded-up count and keeps the extra ones (the next attempt's first
  // polynomials) instead of leaving lanes empty. 1 = no look-ahead.
  uint8_t mask_ways;

  // Signing's masks and challenges c~ = H(mu || w1Encode(w1)) on shared
  // lanes, for rho'' and gamma1's bits (null: expand_mask and shake256 as
  // above; same results), used per shape as sign_group where attempts are
  // not grouped: 0 not used, 1 masks and c~, 2 SampleInBall's first block
  // too (worth it where the mask lanes have to wait on the hash lane anyway).
  std::unique_ptr<MaskHash> (*mask_hash)(const uint8_t rhopp[64], unsigned gamma1_bits);
  uint8_t mask_hash_shapes[3];

  // The microarchitecture the choices above (groups, lanes shared or hashes
  // beside them, look-ahead) were measured for; "generic" is the table used
  // where no other one matches the CPU. A backend may have several tables of
  // one name (backend.cc lists them, with the CPUs each is for); all give the
  // same results.
  const char* tuning = "generic";
};

// The backend in use: the one select_backend chose, else (at first call) the
// best the CPU supports, with its table for this microarchitecture.
const Backend& backend();

// Every table of the named backend that this CPU runs (each tuning), the one
// backend() would choose first; empty for a name this CPU cannot run.
std::vector<const Backend*> backend_tables(std::string_view name);

// Tests only: makes b the backend in use (a copy of a table with one field
// changed, to check that the result does not depend on it); b must outlive
// its use, and select_backend switches back.
void use_backend_for_testing(const Backend* b);

// The portable backend, always available.
extern const Backend kRefBackend;
// x86-64 vector backends (cpu/avx2/, cpu/avx512/), when compiled in: the
// generic tables and those for AMD Zen 5.
extern const Backend kAvx2Backend;
extern const Backend kAvx2Zen5Backend;
extern const Backend kAvx512Backend;
extern const Backend kAvx512Zen5Backend;
// The AArch64 NEON backend (cpu/neon/), when compiled in: plain, and with the
// SHA-3 extension's Keccak (both named "neon").
extern const Backend kNeonBackend;
extern const Backend kNeonSha3Backend;

}  // namespace mldsa
