// core_fuzz.cc - the core's entry points for untrusted bytes, on every
// backend this CPU runs: PublicKey::decode + verify (and verify_encoded,
// which must agree), PrivateKey::from_sk + sign, sign_encoded,
// PrivateKey::from_seed. Each input runs on the portable
// backend first and then on each vector backend, which must give the same
// status and bytes; a key that loads must sign what its public key verifies.
//
// Input: operation (byte 0, mod 4) and parameter set (byte 0 >> 2, mod 6:
// ML-DSA-44/65/87, round-3 Dilithium2/3/5), then the operation's bytes (a key, or a
// public key's length-prefixed bytes followed by a signature).
#include "cpu/backend.h"
#include "cpu/mldsa.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

using mldsa::Status;

[[noreturn]] void fail(const char* what, const char* backend) {
  std::fprintf(stderr, "fuzz check failed: %s (backend %s)\n", what, backend);
  std::abort();
}

// Status and output bytes of one operation on the backend in use.
struct Result {
  Status status = Status::internal_error;
  std::vector<uint8_t> bytes;
  bool operator==(const Result& o) const { return status == o.status && bytes == o.bytes; }
};

const uint8_t kMsg[] = {'c', 'o', 'r', 'e'};
const uint8_t kCtx[] = {'c'};
const uint8_t kZero[mldsa::MAX_RND_BYTES] = {};  // deterministic, either scheme

// The context the operations use: round 3 has none.
std::span<const uint8_t> ctx_for(const mldsa::Params& p) {
  if (p.scheme == mldsa::Scheme::dilithium_r3) return {};
  return kCtx;
}

// A loaded private key signs (deterministically) what its public key verifies.
Result sign_with(const mldsa::PrivateKey& key) {
  Result r;
  r.bytes.resize(key.params().sig_bytes);
  r.status = mldsa::sign(key, kMsg, ctx_for(key.params()), kZero, r.bytes.data());
  if (r.status == Status::ok && mldsa::verify(key.public_key(), kMsg, ctx_for(key.params()), r.bytes) != Status::ok)
    fail("a signature of a loaded key does not verify", mldsa::backend_name());
  return r;
}

Result run(unsigned op, const mldsa::Params& p, std::span<const uint8_t> in) {
  Result r;
  switch (op) {
    case 0: {  // verify: [pk length: 2 bytes][pk][signature]
      if (in.size() < 2) return r;
      const size_t n = (static_cast<size_t>(in[0]) << 8) | in[1];
      if (in.size() - 2 < n) return r;
      std::unique_ptr<mldsa::PublicKey> pub;
      r.status = mldsa::PublicKey::decode(p, in.subspan(2, n), pub);
      if (r.status == Status::ok) r.status = mldsa::verify(*pub, kMsg, ctx_for(p), in.subspan(2 + n));
      if (mldsa::verify_encoded(p, in.subspan(2, n), kMsg, ctx_for(p), in.subspan(2 + n)) != r.status)
        fail("verify_encoded and decode + verify disagree", mldsa::backend_name());
      return r;
    }
    case 1: {  // from_sk + sign
      std::unique_ptr<mldsa::PrivateKey> key;
      r.status = mldsa::PrivateKey::from_sk(p, in, key);
      return r.status == Status::ok ? sign_with(*key) : r;
    }
    case 2: {  // sign_encoded (skDecode's range checks only)
      r.bytes.resize(p.sig_bytes);
      r.status = mldsa::sign_encoded(p, in, kMsg, ctx_for(p), kZero, r.bytes.data());
      if (r.status != Status::ok) r.bytes.clear();
      return r;
    }
    default: {  // from_seed + sign
      std::unique_ptr<mldsa::PrivateKey> key;
      r.status = mldsa::PrivateKey::from_seed(p, in, key);
      return r.status == Status::ok ? sign_with(*key) : r;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const unsigned op = data[0] & 3;
  const mldsa::Params& p = mldsa::params(static_cast<mldsa::ParamSet>((data[0] >> 2) % mldsa::PARAM_SET_COUNT));
  const std::span<const uint8_t> in(data + 1, size - 1);
  if (!mldsa::select_backend("ref")) fail("no ref backend", "ref");
  const Result ref = run(op, p, in);
  // Every table of each vector backend this CPU runs (cpu/backend.cc:
  // generic and per microarchitecture).
  for (const char* backend : {"avx2", "avx512"}) {
    for (const mldsa::Backend* table : mldsa::backend_tables(backend)) {
      mldsa::use_backend_for_testing(table);
      if (!(run(op, p, in) == ref)) fail("backends disagree", (std::string(table->name) + "@" + table->tuning).c_str());
    }
  }
  return 0;
}
