// core_bench.cc - keygen, sign and verify through the core API (cpu/mldsa.h).
//
// "fresh" rows start from the encoded key for every operation (what a caller
// that keeps only encoded keys pays, and what other libraries' sign/verify
// functions measure): sign_fresh is sign_encoded (skDecode, ExpandA, NTTs,
// sign), verify_fresh is verify_encoded (pkDecode, ExpandA, H(pk), NTT(t1),
// verify).
// sign_import adds what PrivateKey::from_sk does on top of sign_fresh: the
// key-consistency checks (t = A*s1 + s2, pkEncode, H(pk)) and the public key.
// "cached" rows reuse one PrivateKey / PublicKey object, whose expanded form
// (A^, s1^, s2^, t0^, tr) is computed once.
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

enum class SignKey { encoded, imported, cached };

void sign(benchmark::State& state, const Params* p, SignKey how) {
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
    // Hedged signing (rnd from the OS), the default a caller gets.
    Status st;
    if (how == SignKey::encoded) {
      st = sign_encoded(*p, sk, msg, {}, nullptr, sig.data());
    } else if (how == SignKey::imported) {
      std::unique_ptr<PrivateKey> fresh;
      st = PrivateKey::from_sk(*p, sk, fresh);
      if (st == Status::ok) st = mldsa::sign(*fresh, msg, {}, nullptr, sig.data());
    } else {
      st = mldsa::sign(*key, msg, {}, nullptr, sig.data());
    }
    if (st != Status::ok) {
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
    const Status st = cached ? mldsa::verify(pub, msgs[i], {}, sigs[i]) : verify_encoded(*p, pk, msgs[i], {}, sigs[i]);
    if (st != Status::ok) {
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
  add("sign_fresh/" + n, [p](benchmark::State& s) { sign(s, p, SignKey::encoded); });
  add("sign_import/" + n, [p](benchmark::State& s) { sign(s, p, SignKey::imported); });
  add("sign_cached/" + n, [p](benchmark::State& s) { sign(s, p, SignKey::cached); });
  add("verify_fresh/" + n, [p](benchmark::State& s) { verify(s, p, false); });
  add("verify_cached/" + n, [p](benchmark::State& s) { verify(s, p, true); });
}

}  // namespace mldsa::bench
