// mu.cc - the message representative mu = H(tr || M', 64) (FIPS 204
// Algorithm 7 line 6) for the pure, pre-hash and internal interfaces, round
// 3's mu = H(tr || M, 64), and the HashML-DSA hash table (Section 5.4).
#include <cctype>
#include <cstring>
#include <new>

#include "cpu/keccak.h"
#include "cpu/mldsa.h"

namespace mldsa {
namespace {

struct HashInfo {
  HashAlg alg;
  const char* acvp_name;
  const char* ossl_names[3];  // other spellings accepted by hash_from_name
  uint8_t oid_last;           // 2.16.840.1.101.3.4.2.<oid_last>
  uint8_t digest_bytes;
};

constexpr HashInfo kHashes[] = {
    {HashAlg::SHA2_224, "SHA2-224", {"SHA224", "SHA-224", nullptr}, 4, 28},
    {HashAlg::SHA2_256, "SHA2-256", {"SHA256", "SHA-256", nullptr}, 1, 32},
    {HashAlg::SHA2_384, "SHA2-384", {"SHA384", "SHA-384", nullptr}, 2, 48},
    {HashAlg::SHA2_512, "SHA2-512", {"SHA512", "SHA-512", nullptr}, 3, 64},
    {HashAlg::SHA2_512_224, "SHA2-512/224", {"SHA512-224", "SHA-512/224", "SHA512/224"}, 5, 28},
    {HashAlg::SHA2_512_256, "SHA2-512/256", {"SHA512-256", "SHA-512/256", "SHA512/256"}, 6, 32},
    {HashAlg::SHA3_224, "SHA3-224", {nullptr, nullptr, nullptr}, 7, 28},
    {HashAlg::SHA3_256, "SHA3-256", {nullptr, nullptr, nullptr}, 8, 32},
    {HashAlg::SHA3_384, "SHA3-384", {nullptr, nullptr, nullptr}, 9, 48},
    {HashAlg::SHA3_512, "SHA3-512", {nullptr, nullptr, nullptr}, 10, 64},
    {HashAlg::SHAKE128, "SHAKE-128", {"SHAKE128", nullptr, nullptr}, 11, 32},
    {HashAlg::SHAKE256, "SHAKE-256", {"SHAKE256", nullptr, nullptr}, 12, 64},
};

const HashInfo& info(HashAlg h) { return kHashes[static_cast<int>(h)]; }

// DER of each OID: 06 09 60 86 48 01 65 03 04 02 <last>.
struct OidTable {
  uint8_t der[12][11];
  constexpr OidTable() : der{} {
    for (int i = 0; i < 12; ++i) {
      const uint8_t prefix[10] = {0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02};
      for (int j = 0; j < 10; ++j) der[i][j] = prefix[j];
      der[i][10] = kHashes[i].oid_last;
    }
  }
};
constexpr OidTable kOids;

bool iequals(std::string_view a, const char* b) {
  if (!b || a.size() != std::strlen(b)) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

Keccak& sponge(uint8_t* state) { return *std::launder(reinterpret_cast<Keccak*>(state)); }

}  // namespace

size_t hash_digest_bytes(HashAlg h) { return info(h).digest_bytes; }
std::span<const uint8_t> hash_oid_der(HashAlg h) { return {kOids.der[static_cast<int>(h)], 11}; }
const char* hash_name(HashAlg h) { return info(h).acvp_name; }

bool hash_from_name(std::string_view name, HashAlg& out) {
  for (const HashInfo& hi : kHashes) {
    bool match = iequals(name, hi.acvp_name);
    for (const char* n : hi.ossl_names) match = match || iequals(name, n);
    if (match) {
      out = hi.alg;
      return true;
    }
  }
  return false;
}

Status prehash_digest(HashAlg h, std::span<const uint8_t> msg, uint8_t* digest_out) {
  const size_t n = hash_digest_bytes(h);
  switch (h) {
    case HashAlg::SHA3_224:
    case HashAlg::SHA3_256:
    case HashAlg::SHA3_384:
    case HashAlg::SHA3_512: sha3(digest_out, n, msg.data(), msg.size()); return Status::ok;
    case HashAlg::SHAKE128: shake128(digest_out, n, msg.data(), msg.size()); return Status::ok;
    case HashAlg::SHAKE256: shake256(digest_out, n, msg.data(), msg.size()); return Status::ok;
    default: return Status::unsupported_hash;
  }
}

static_assert(sizeof(Keccak) <= 256 && alignof(Keccak) <= 8, "MuBuilder state too small");

MuBuilder::MuBuilder() { new (state_) Keccak(); }
MuBuilder::~MuBuilder() { secure_zero(state_, sizeof state_); }

void MuBuilder::init_internal(std::span<const uint8_t> tr) {
  Keccak& k = sponge(state_);
  k.init(SHAKE256_RATE);
  k.absorb(tr.data(), tr.size());
}

Status MuBuilder::init_message(const Params& p, std::span<const uint8_t> tr, std::span<const uint8_t> ctx) {
  if (p.scheme == Scheme::ml_dsa) return init_pure(tr, ctx);
  if (!ctx.empty()) return Status::context_unsupported;
  init_internal(tr);  // round 3: M' is the message itself
  return Status::ok;
}

Status MuBuilder::init_pure(std::span<const uint8_t> tr, std::span<const uint8_t> ctx) {
  if (ctx.size() > MAX_CONTEXT_BYTES) return Status::context_too_long;
  init_internal(tr);
  const uint8_t head[2] = {0, static_cast<uint8_t>(ctx.size())};
  update(head);
  update(ctx);
  return Status::ok;
}

Status MuBuilder::init_prehash(std::span<const uint8_t> tr, std::span<const uint8_t> ctx, HashAlg h,
                               std::span<const uint8_t> digest) {
  if (ctx.size() > MAX_CONTEXT_BYTES) return Status::context_too_long;
  if (digest.size() != hash_digest_bytes(h)) return Status::bad_digest_length;
  init_internal(tr);
  const uint8_t head[2] = {1, static_cast<uint8_t>(ctx.size())};
  update(head);
  update(ctx);
  update(hash_oid_der(h));
  update(digest);
  return Status::ok;
}

void MuBuilder::update(std::span<const uint8_t> data) {
  if (!data.empty()) sponge(state_).absorb(data.data(), data.size());
}

void MuBuilder::final(uint8_t mu[MU_BYTES]) {
  Keccak& k = sponge(state_);
  k.finalize(DS_SHAKE);
  k.squeeze(mu, MU_BYTES);
  k.wipe();
}

}  // namespace mldsa
