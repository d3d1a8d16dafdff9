// falcon_bench.cc - round-3 Falcon's keygen, sign and verify through its core
// API (cpu/falcon/falcon.h), beside ML-DSA's rows in bench_core.
//
// Falcon's core has no key object: sign starts from the encoded private key
// every time (decode, G = g F / f, the basis and its Gram matrix in FFT form,
// the sampler over the LDL tree computed on the fly), and verify from the
// encoded public key, so these rows compare with ML-DSA's sign_fresh and
// verify_fresh. The nonce and sampler seed come from the OS (getrandom), as
// ML-DSA's hedged rnd in those rows; signatures are the compressed format.
#include "bench/bench.h"

#include <vector>

#include "cpu/falcon/falcon.h"

namespace mldsa::bench {
namespace {

void make_key(const falcon::Params& p, std::vector<uint8_t>& pk, std::vector<uint8_t>& sk) {
  uint8_t seed[falcon::SEED_BYTES];
  for (size_t i = 0; i < sizeof seed; i++) seed[i] = static_cast<uint8_t>(i * 7 + p.logn);
  pk.resize(p.pk_bytes);
  sk.resize(p.sk_bytes);
  falcon::keygen(p, seed, pk.data(), sk.data());
}

void falcon_keygen(benchmark::State& state, const falcon::Params* p) {
  uint8_t seed[falcon::SEED_BYTES] = {};
  std::vector<uint8_t> pk(p->pk_bytes), sk(p->sk_bytes);
  uint64_t n = 0;
  const uint64_t t0 = ticks();
  for (auto _ : state) {
    std::memcpy(seed, &++n, sizeof n);  // a distinct key each time
    falcon::keygen(*p, seed, pk.data(), sk.data());
    benchmark::DoNotOptimize(sk.data());
  }
  report_cycles(state, t0, ticks());
}

bool draw(uint8_t* nonce, uint8_t* seed) {
  return os_random(nonce, falcon::NONCE_BYTES) && os_random(seed, falcon::SEED_BYTES);
}

void falcon_sign(benchmark::State& state, const falcon::Params* p) {
  std::vector<uint8_t> pk, sk;
  make_key(*p, pk, sk);
  std::vector<uint8_t> sig(p->sig_max_bytes);
  uint8_t msg[MSG_BYTES], nonce[falcon::NONCE_BYTES], seed[falcon::SEED_BYTES];
  uint64_t n = 0;
  const uint64_t t0 = ticks();
  for (auto _ : state) {
    next_message(msg, ++n);
    size_t len = 0;
    if (!draw(nonce, seed) || !falcon::sign(*p, sk.data(), msg, MSG_BYTES, nonce, seed,
                                            falcon::SigFormat::compressed, sig.data(), &len)) {
      state.SkipWithError("sign failed");
      break;
    }
    benchmark::DoNotOptimize(sig.data());
  }
  report_cycles(state, t0, ticks());
}

void falcon_verify(benchmark::State& state, const falcon::Params* p) {
  std::vector<uint8_t> pk, sk;
  make_key(*p, pk, sk);
  // A pool of distinct signed messages, cycled through.
  constexpr size_t POOL = 64;
  std::vector<std::vector<uint8_t>> msgs(POOL, std::vector<uint8_t>(MSG_BYTES));
  std::vector<std::vector<uint8_t>> sigs(POOL, std::vector<uint8_t>(p->sig_max_bytes));
  std::vector<size_t> lens(POOL);
  for (size_t i = 0; i < POOL; i++) {
    uint8_t nonce[falcon::NONCE_BYTES], seed[falcon::SEED_BYTES];
    next_message(msgs[i].data(), i);
    if (!draw(nonce, seed) || !falcon::sign(*p, sk.data(), msgs[i].data(), MSG_BYTES, nonce, seed,
                                            falcon::SigFormat::compressed, sigs[i].data(), &lens[i])) {
      state.SkipWithError("sign failed");
      return;
    }
  }
  size_t i = 0;
  const uint64_t t0 = ticks();
  for (auto _ : state) {
    if (!falcon::verify(*p, pk.data(), msgs[i].data(), MSG_BYTES, sigs[i].data(), lens[i],
                        falcon::SigFormat::compressed)) {
      state.SkipWithError("verify failed");
      break;
    }
    i = (i + 1) % POOL;
  }
  report_cycles(state, t0, ticks());
}

}  // namespace

void register_falcon_benchmarks() {
  for (const falcon::Params* p : {&falcon::falcon512(), &falcon::falcon1024()}) {
    const std::string n = p->name;
    add("keygen/" + n, [p](benchmark::State& s) { falcon_keygen(s, p); });
    add("sign_fresh/" + n, [p](benchmark::State& s) { falcon_sign(s, p); });
    add("verify_fresh/" + n, [p](benchmark::State& s) { falcon_verify(s, p); });
  }
}

}  // namespace mldsa::bench
