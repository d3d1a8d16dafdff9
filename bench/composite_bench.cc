// composite_bench.cc - composite ML-DSA sign and verify (composite/) for each of the 18
// algorithms: the core's ML-DSA (no routing) and OpenSSL's default-library-context RSA /
// ECDSA / EdDSA, on a 64-byte message with an empty context. Keys are made once, outside the
// timing (the ML-DSA half from a fixed seed, the traditional half fresh).
#include "bench/bench.h"
#include "composite/composite.h"

#include <memory>
#include <vector>

namespace mldsa::bench {
namespace {

const uint8_t kMessage[64] = {'c', 'o', 'm', 'p', 'o', 's', 'i', 't', 'e'};

std::unique_ptr<composite::Key> make_key(const composite::Algorithm& a) {
  uint8_t seed[SEED_BYTES];
  fixed_seed(a.mldsa, seed);
  std::unique_ptr<composite::Key> key;
  if (composite::Key::generate(nullptr, a, seed, key) != composite::Error::ok) return nullptr;
  return key;
}

void sign(benchmark::State& state, const composite::Key* key) {
  if (key == nullptr) return state.SkipWithError("key generation failed");
  std::vector<uint8_t> sig(key->max_signature_bytes());
  size_t len = 0;
  const auto ops = composite::core_ops();
  for (auto _ : state) {
    if (composite::sign_message(nullptr, *key, ops, kMessage, {}, nullptr, sig.data(), &len) != composite::Error::ok)
      return state.SkipWithError("sign failed");
    benchmark::DoNotOptimize(sig.data());
  }
}

void verify(benchmark::State& state, const composite::Key* key) {
  if (key == nullptr) return state.SkipWithError("key generation failed");
  std::vector<uint8_t> sig(key->max_signature_bytes());
  size_t len = 0;
  const auto ops = composite::core_ops();
  if (composite::sign_message(nullptr, *key, ops, kMessage, {}, nullptr, sig.data(), &len) != composite::Error::ok)
    return state.SkipWithError("sign failed");
  for (auto _ : state) {
    if (composite::verify_message(nullptr, *key, ops, kMessage, {}, {sig.data(), len}) != composite::Error::ok)
      return state.SkipWithError("verify failed");
  }
}

}  // namespace

void register_composite_benchmarks() {
  for (const composite::Algorithm& a : composite::algorithms()) {
    // Made at registration, kept for the process: every repetition uses the same key.
    const composite::Key* key = make_key(a).release();
    const std::string n = a.name;
    add("composite_sign/" + n, [key](benchmark::State& s) { sign(s, key); });
    add("composite_verify/" + n, [key](benchmark::State& s) { verify(s, key); });
  }
}

}  // namespace mldsa::bench
