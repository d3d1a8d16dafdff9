// mldsa.h - the public API of the FIPS 204 core (target mldsa_cpu).
//
// No OpenSSL here: the provider, the GPU engine, tests and benchmarks all call
// this header. Key objects are immutable after construction, so one key may be
// shared by many threads; every secret they hold is zeroized on destruction.
//
// Two schemes share the core: ML-DSA (FIPS 204) and CRYSTALS-Dilithium round
// 3 (specification v3.1), which earlier deployments issued keys with. The
// scheme is a property of the parameter set (Params::scheme); every function
// below serves both, and says where they differ.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mldsa {

enum class ParamSet : uint8_t {
  ML_DSA_44 = 0, ML_DSA_65 = 1, ML_DSA_87 = 2,
  DILITHIUM2 = 3, DILITHIUM3 = 4, DILITHIUM5 = 5,  // round 3 (v3.1)
};
inline constexpr size_t PARAM_SET_COUNT = 6;

// What the two schemes do differently (the round-3 specification against
// FIPS 204): round 3 has a 32-byte tr = H(pk, 32) (FIPS 204: 64), mu =
// H(tr || M, 64) with no context string or domain prefix, a 32-byte c~ at
// every level, keygen's (rho, rho', K) = H(zeta, 128) without FIPS 204's
// (k, l) bytes, and rho'' = H(K || mu, 64) when deterministic (FIPS 204:
// H(K || rnd || mu, 64)) or 64 random bytes when randomized. Sampling, the
// NTT, rounding, the encodings and the norm checks are the same.
enum class Scheme : uint8_t { ml_dsa, dilithium_r3 };

// FIPS 204 Table 1 and Table 2; the round-3 specification's Table 2.
struct Params {
  ParamSet id;
  const char* name;           // "ML-DSA-44" ..., "Dilithium2" ...
  Scheme scheme;
  unsigned k, l;              // matrix A is k x l
  unsigned eta;               // secret coefficient range [-eta, eta]
  unsigned tau;               // non-zero coefficients of the challenge c
  unsigned beta;              // tau * eta
  unsigned gamma1_bits;       // gamma1 = 2^gamma1_bits
  int32_t gamma1;
  int32_t gamma2;             // (q-1)/88 or (q-1)/32
  unsigned omega;             // max number of hint bits
  unsigned lambda;            // collision strength in bits
  unsigned security_category; // NIST category 2, 3 or 5
  size_t ctilde_bytes;        // c~: lambda/4 (FIPS 204), 32 (round 3)
  size_t tr_bytes;            // tr = H(pk): 64 (FIPS 204), 32 (round 3)
  size_t rnd_bytes;           // signing randomness, see sign(): 32 (FIPS 204), 64 (round 3)
  size_t pk_bytes, sk_bytes, sig_bytes;
};

const Params& params(ParamSet p);
// "ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "Dilithium2", "Dilithium3",
// "Dilithium5" (exact match); nullptr otherwise.
const Params* params_by_name(std::string_view name);

inline constexpr size_t SEED_BYTES = 32;      // FIPS 204's xi, round 3's zeta
inline constexpr size_t RND_BYTES = 32;       // FIPS 204's rnd
inline constexpr size_t MAX_RND_BYTES = 64;   // round 3's rho''
inline constexpr size_t TR_BYTES = 64;        // the longest tr (FIPS 204's)
inline constexpr size_t MU_BYTES = 64;
inline constexpr size_t MAX_CONTEXT_BYTES = 255;
inline constexpr size_t MAX_PK_BYTES = 2592;
inline constexpr size_t MAX_SK_BYTES = 4896;
inline constexpr size_t MAX_SIG_BYTES = 4627;

// Every failure has its own code, so callers can raise a precise error.
enum class Status : int {
  ok = 0,
  verify_failed,        // well-formed signature that does not verify
  bad_pk_length,
  bad_sk_length,
  bad_sig_length,
  bad_seed_length,
  bad_mu_length,
  bad_digest_length,    // pre-hash digest length does not match the hash
  context_too_long,     // more than 255 bytes
  sk_s1_out_of_range,   // a coefficient of s1 outside [-eta, eta]
  sk_s2_out_of_range,
  sk_t0_mismatch,       // t0 is not the one A*s1+s2 gives
  sk_tr_mismatch,       // tr != H(pk) for the pk the secret key implies
  sig_malformed_hint,   // hint indices not increasing, over omega, or non-zero padding
  unsupported_hash,     // a hash the core cannot compute itself (SHA-2)
  context_unsupported,  // a non-empty context string for a round-3 key (round 3 has none)
  prehash_unsupported,  // HashML-DSA with a round-3 key (FIPS 204 only)
  rng_failure,          // the OS random source failed
  sign_attempts_exhausted,  // no signature within FIPS 204's loop limit (never, for a valid key)
  internal_error,
};
const char* status_string(Status s);

// ---------------------------------------------------------------------------
// Keys

class PublicKey {
 public:
  // Decodes pk (FIPS 204 Algorithm 23) and expands it once: A^, t1*2^d in NTT
  // form, and tr = H(pk, tr_bytes).
  static Status decode(const Params& p, std::span<const uint8_t> pk, std::unique_ptr<PublicKey>& out);
  ~PublicKey();
  PublicKey(const PublicKey&) = delete;
  PublicKey& operator=(const PublicKey&) = delete;

  const Params& params() const;
  std::span<const uint8_t> encoded() const;  // pkEncode bytes
  std::span<const uint8_t> tr() const;       // params().tr_bytes bytes
  bool operator==(const PublicKey& o) const; // same parameter set and pk bytes

  struct Expanded;  // defined in cpu/key_expanded.h (the core's internal layout)
  const Expanded& expanded() const { return *x_; }

 private:
  explicit PublicKey(std::unique_ptr<Expanded> x);
  std::unique_ptr<Expanded> x_;
  friend class PrivateKey;
};

class PrivateKey {
 public:
  // ML-DSA.KeyGen_internal (Algorithm 6) from the 32-byte seed xi; keeps xi.
  // Round 3: KeyGen from the 32-byte seed zeta it draws first.
  static Status from_seed(const Params& p, std::span<const uint8_t> seed, std::unique_ptr<PrivateKey>& out);
  // ML-DSA.KeyGen (Algorithm 1): xi drawn from the OS random source.
  static Status generate(const Params& p, std::unique_ptr<PrivateKey>& out);
  // skDecode (Algorithm 25) plus the checks FIPS 204 leaves to implementers:
  // s1/s2 ranges, t0 and tr consistent with the pk that A*s1+s2 gives.
  static Status from_sk(const Params& p, std::span<const uint8_t> sk, std::unique_ptr<PrivateKey>& out);
  ~PrivateKey();
  PrivateKey(const PrivateKey&) = delete;
  PrivateKey& operator=(const PrivateKey&) = delete;

  const Params& params() const;
  bool has_seed() const;
  std::span<const uint8_t> seed() const;     // empty when loaded from sk only
  std::span<const uint8_t> encoded() const;  // skEncode bytes
  const PublicKey& public_key() const;       // the matching public key

  struct Expanded;  // defined in cpu/key_expanded.h
  const Expanded& expanded() const { return *x_; }

 private:
  PrivateKey(std::unique_ptr<Expanded> x, std::unique_ptr<PublicKey> pub);
  std::unique_ptr<Expanded> x_;
  std::unique_ptr<PublicKey> pub_;
};

// ---------------------------------------------------------------------------
// HashML-DSA (FIPS 204 Section 5.4): the hashes allowed for the pre-hash.

enum class HashAlg : uint8_t {
  SHA2_224, SHA2_256, SHA2_384, SHA2_512, SHA2_512_224, SHA2_512_256,
  SHA3_224, SHA3_256, SHA3_384, SHA3_512, SHAKE128, SHAKE256,
};
size_t hash_digest_bytes(HashAlg h);              // SHAKE128: 32, SHAKE256: 64
std::span<const uint8_t> hash_oid_der(HashAlg h); // DER of the hash's OID (tag, length, value)
const char* hash_name(HashAlg h);                 // "SHA2-256", "SHA3-512", "SHAKE-128", ...
// Accepts ACVP names ("SHA2-512/256", "SHAKE-128") and OpenSSL names
// ("SHA512-256", "SHA3-256", "SHAKE128"); false if unknown.
bool hash_from_name(std::string_view name, HashAlg& out);
// Computes the digest of msg with the core's own Keccak (SHA-3 and SHAKE only);
// SHA-2 returns Status::unsupported_hash: the caller hashes those itself.
Status prehash_digest(HashAlg h, std::span<const uint8_t> msg, uint8_t* digest_out);

// ---------------------------------------------------------------------------
// mu = H(tr || M', 64), built incrementally so a long message is never copied.
// tr is the key's (PublicKey::tr(): 64 bytes for ML-DSA, 32 for round 3).

class MuBuilder {
 public:
  MuBuilder();
  ~MuBuilder();
  // M' = M (the internal interface, Algorithm 7/8 with the caller's M').
  void init_internal(std::span<const uint8_t> tr);
  // M' = 0 || len(ctx) || ctx || M (pure ML-DSA, Algorithms 2/3).
  Status init_pure(std::span<const uint8_t> tr, std::span<const uint8_t> ctx);
  // The message interface of p's scheme: pure ML-DSA as init_pure, or round
  // 3's mu = H(tr || M), which has no context (a non-empty ctx is
  // Status::context_unsupported).
  Status init_message(const Params& p, std::span<const uint8_t> tr, std::span<const uint8_t> ctx);
  // M' = 1 || len(ctx) || ctx || OID(h) || digest (HashML-DSA, Algorithms 4/5).
  // Complete after this call: no update() follows.
  Status init_prehash(std::span<const uint8_t> tr, std::span<const uint8_t> ctx, HashAlg h,
                      std::span<const uint8_t> digest);
  void update(std::span<const uint8_t> data);
  void final(uint8_t mu[MU_BYTES]);

 private:
  alignas(8) uint8_t state_[256];  // opaque SHAKE256 state
};

// ---------------------------------------------------------------------------
// Sign and verify. sig has params().sig_bytes bytes. rnd: the key's
// params().rnd_bytes bytes, or nullptr for fresh OS randomness; all zero bytes
// sign deterministically.
//  - ML-DSA: rnd is FIPS 204's 32 bytes, rho'' = H(K || rnd || mu, 64); zero is
//    its deterministic variant (Algorithm 2, line 5).
//  - Round 3: randomized signing uses the 64 bytes as rho'' itself; zero
//    bytes select the deterministic variant, rho'' = H(K || mu, 64) (the KAT
//    mode). A fixed non-zero rnd would reuse one rho'' for every message,
//    which reveals the key: round-3 callers pass zeros or fresh randomness.
// Round-3 keys have no context string (ctx must be empty) and no pre-hash
// variant (sign_prehash / verify_prehash: Status::prehash_unsupported).

Status sign(const PrivateKey& key, std::span<const uint8_t> msg, std::span<const uint8_t> ctx,
            const uint8_t* rnd, uint8_t* sig);
Status sign_prehash(const PrivateKey& key, HashAlg h, std::span<const uint8_t> digest,
                    std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig);
Status sign_internal(const PrivateKey& key, std::span<const uint8_t> mprime, const uint8_t* rnd,
                     uint8_t* sig);
// ML-DSA.Sign (Algorithm 2) on an encoded secret key, as FIPS 204 writes it:
// skDecode and expansion for this call only. The range checks of skDecode are
// made; the consistency checks of PrivateKey::from_sk (t0, tr) are not, so a
// key from an untrusted source belongs in from_sk. For one signature per key;
// repeated signing should keep a PrivateKey, whose expansion is cached.
Status sign_encoded(const Params& p, std::span<const uint8_t> sk, std::span<const uint8_t> msg,
                    std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig);
// External mu: Algorithm 7 from line 7 on, given mu (either scheme).
Status sign_mu(const PrivateKey& key, std::span<const uint8_t> mu, const uint8_t* rnd, uint8_t* sig);

// ok, verify_failed, bad_sig_length, sig_malformed_hint, context_too_long, ...
Status verify(const PublicKey& key, std::span<const uint8_t> msg, std::span<const uint8_t> ctx,
              std::span<const uint8_t> sig);
Status verify_prehash(const PublicKey& key, HashAlg h, std::span<const uint8_t> digest,
                      std::span<const uint8_t> ctx, std::span<const uint8_t> sig);
Status verify_internal(const PublicKey& key, std::span<const uint8_t> mprime, std::span<const uint8_t> sig);
Status verify_mu(const PublicKey& key, std::span<const uint8_t> mu, std::span<const uint8_t> sig);
// verify() from the encoded pk, in one call (sign_encoded's counterpart): the
// same results and statuses as PublicKey::decode then verify, with the
// hashes (tr, SampleInBall's, c~') in ExpandA's lanes where the backend
// shares them.
Status verify_encoded(const Params& p, std::span<const uint8_t> pk, std::span<const uint8_t> msg,
                      std::span<const uint8_t> ctx, std::span<const uint8_t> sig);

// ---------------------------------------------------------------------------
// Backends (cpu/backend.h holds the kernel table).

// Name of the backend in use: "ref", "avx2", "avx512" or "neon".
const char* backend_name();
// The microarchitecture its table was measured for: "generic" or "zen5".
const char* backend_tuning();
// Forces a backend by name ("auto" picks the best the CPU supports), and
// optionally one of its tables by tuning ("avx2@generic", "avx512@zen5";
// without it, the table measured for this CPU, see cpu/backend.cc). Returns
// false if the name or tuning is unknown or the CPU lacks the backend. Not
// thread-safe against concurrent signing; call at start-up. (The module's
// cpu_backend setting, MLDSA_ACCEL_CPU, calls it: provctx/settings.h.)
bool select_backend(std::string_view name);
// Every spelling select_backend knows in this build, whether or not this CPU
// runs it: "auto" and "auto@<tuning>", each backend's name, and name@tuning
// for each of its tables (e.g. "auto", "auto@zen5", "auto@generic",
// "avx512", "avx512@zen5", ..., "ref", "ref@generic"), for checking a
// configured name and saying what is allowed.
std::vector<std::string> backend_specs();

// Fills buf from the OS random source (getrandom); false on failure.
bool os_random(uint8_t* buf, size_t len);
// Zeroizes memory in a way the compiler cannot remove.
void secure_zero(void* p, size_t len);

}  // namespace mldsa
