// core_bench.cc - keygen, sign and verify through the core API (cpu/mldsa.h).
//
// "fresh" rows decode and expand the key for every operation (what a caller
// that keeps only encoded keys pays); "cached" rows reuse one PrivateKey /
// PublicKey object, whose expanded form (A^, s1^, s2^, t0^, tr) is computed once.
#include "bench/bench.h"

#include <memory>
#include <vector>

namespace mldsa::bench {
namespace {

std::unique_ptr<PrivateKey> make_key(const Params& p) {
  uint8_t seed[SEED_BYTES];
  fixed_seed(p.id, seed);
  std::unique_ptr<PrivateKey> key;
  if (PrivateKey::from_seed(p, seed, key) != Status::ok) return nullptr;
  return key;
}

void keygen(benchmark::State& state, const Params* p) {
  uint8_t seed[SEED_BYTES] = {};
  uint64_t n = 0;
  const uint64_t t0 = ticks();
  for (auto _ : state) {
    std::memcpy(seed, &++n, sizeof n);  // a distinct key each time
    std::unique_ptr<PrivateKey> key;
    if (PrivateKey::from_seed(*p, seed, key) != Status::ok) {
      state.SkipWithError("from_seed failed");
      break;
    }
    benchmark::DoNotOptimize(key.get());
  }
  report_cycles(state, t0, ticks());
}

void sign(benchmark::State& state, const Params* p, bool cached) {
  std::unique_ptr<PrivateKey> key = make_key(*p);
  if (!key) {
    state.SkipWithError("key generation failed");
    return;
  }
  const std::vector<uint8_t> sk(key->encoded().begin(), key->encoded().end());
  std::vector<uint8_t> sig(p->sig_bytes);
  uint8_t msg[MSG_BYTES];
  uint64_t n = 0;
  const uint64_t t0 = ticks();
  for (auto _ : state) {
    next_message(msg, ++n);
    std::unique_ptr<PrivateKey> fresh;
    if (!cached && PrivateKey::from_sk(*p, sk, fresh) != Status::ok) {
      state.SkipWithError("from_sk failed");
      break;
    }
    // Hedged signing (rnd from the OS), the default a caller gets.
    if (mldsa::sign(cached ? *key : *fresh, msg, {}, nullptr, sig.data()) != Status::ok) {
      state.SkipWithError("sign failed");
      break;
    }
    benchmark::DoNotOptimize(sig.data());
  }
  report_cycles(state, t0, ticks());
}

void verify(benchmark::State& state, const Params* p, bool cached) {
  std::unique_ptr<PrivateKey> key = make_key(*p);
  if (!key) {
    state.SkipWithError("key generation failed");
    return;
  }
  const PublicKey& pub = key->public_key();
  const std::vector<uint8_t> pk(pub.encoded().begin(), pub.encoded().end());
  // A pool of distinct signed messages, cycled through.
  constexpr size_t POOL = 64;
  std::vector<std::vector<uint8_t>> msgs(POOL, std::vector<uint8_t>(MSG_BYTES));
  std::vector<std::vector<uint8_t>> sigs(POOL, std::vector<uint8_t>(p->sig_bytes));
  for (size_t i = 0; i < POOL; i++) {
    next_message(msgs[i].data(), i);
    if (mldsa::sign(*key, msgs[i], {}, nullptr, sigs[i].data()) != Status::ok) {
      state.SkipWithError("sign failed");
      return;
    }
  }
  size_t i = 0;
  const uint64_t t0 = ticks();
  for (auto _ : state) {
    std::unique_ptr<PublicKey> fresh;
    if (!cached && PublicKey::decode(*p, pk, fresh) != Status::ok) {
      state.SkipWithError("decode failed");
      break;
    }
    if (mldsa::verify(cached ? pub : *fresh, msgs[i], {}, sigs[i]) != Status::ok) {
      state.SkipWithError("verify failed");
      break;
    }
    i = (i + 1) % POOL;
  }
  report_cycles(state, t0, ticks());
}

}  // namespace

void register_core_benchmarks(ParamSet set) {
  const Params* p = &params(set);
  const std::string n = p->name;
  add("keygen/" + n, [p](benchmark::State& s) { keygen(s, p); });
  add("sign_fresh/" + n, [p](benchmark::State& s) { sign(s, p, false); });
  add("sign_cached/" + n, [p](benchmark::State& s) { sign(s, p, true); });
  add("verify_fresh/" + n, [p](benchmark::State& s) { verify(s, p, false); });
  add("verify_cached/" + n, [p](benchmark::State& s) { verify(s, p, true); });
}

}  // namespace mldsa::bench
