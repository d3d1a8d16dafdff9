// kernel_insns.cc - runs one kernel of the active backend (MLDSA_ACCEL_CPU) a
// given number of times on fixed inputs, for counting executed instructions
// under an emulator (bench/count_insns.py): the count of a run with k calls
// minus that of a run with none, over k, is one call. The inputs are made
// the same way whatever k is, so the difference holds the calls alone.
// The falcon_* entries are whole Falcon operations, whose vector kernels
// follow the same backend (cpu/falcon/simd.h: portable under ref).
//
//   kernel_insns KERNEL CALLS     (KERNEL: see kKernels; CALLS <= 16)
//   kernel_insns --list
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "cpu/backend.h"
#include "cpu/falcon/falcon.h"
#include "cpu/mldsa.h"
#include "cpu/small_ntt.h"

namespace {

using namespace mldsa;

constexpr unsigned kMaxCalls = 16;

// Fixed inputs: ML-DSA-65 sizes and ranges (cpu/backend.h's contracts).
struct Inputs {
  const Params& p = params(ParamSet::ML_DSA_65);
  Poly a[kMaxCalls], b[8], c[8], small[8], h, out, out2;
  SmallPoly sa, sb;
  uint8_t seed[64], bytes[32 * 20 + 64];
  uint64_t s1[kMaxCalls][25], s4[kMaxCalls][4][25];
  std::unique_ptr<PrivateKey> key;
  std::vector<uint8_t> msg = std::vector<uint8_t>(32, 0x5a), sig;
  // with_key: a key and its signature (sign and verify), made only for those
  // kernels: the setup runs in both counted runs and only costs time.
  // A Falcon key pair and a signature, for the falcon_* entries only.
  struct Falcon {
    const falcon::Params& p;
    std::vector<uint8_t> pk, sk, sig;
    size_t siglen = 0;
  };
  std::unique_ptr<Falcon> fn;
  explicit Inputs(bool with_key, const falcon::Params* falcon_set = nullptr) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull, static_cast<uint32_t>(x >> 33); };
    auto in = [&](int32_t lo, int32_t hi) { return lo + static_cast<int32_t>(next() % static_cast<uint32_t>(hi - lo + 1)); };
    for (auto& v : a)
      for (auto& e : v.c) e = in(-Q + 1, Q - 1);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < N; ++j) {
        b[i].c[j] = in(-9 * Q + 1, 9 * Q - 1);
        c[i].c[j] = in(0, Q - 1);
        small[i].c[j] = in(-4, 4);
      }
    for (auto& e : h.c) e = next() % 8 == 0;
    for (auto& e : seed) e = static_cast<uint8_t>(next());
    for (auto& e : bytes) e = static_cast<uint8_t>(next());
    for (auto& s : s1)
      for (auto& l : s) l = (uint64_t{next()} << 32) | next();
    for (auto& s : s4)
      for (auto& t : s)
        for (auto& l : t) l = (uint64_t{next()} << 32) | next();
    backend().small_ntt(&sa, &small[0]);
    backend().small_ntt(&sb, &small[1]);
    if (falcon_set) {
      fn.reset(new Falcon{*falcon_set, std::vector<uint8_t>(falcon_set->pk_bytes),
                          std::vector<uint8_t>(falcon_set->sk_bytes), std::vector<uint8_t>(falcon_set->sig_max_bytes)});
      falcon::keygen(fn->p, seed, fn->pk.data(), fn->sk.data());
      falcon_sign(0);
    }
    if (!with_key) return;
    if (PrivateKey::from_seed(p, std::span<const uint8_t>(seed, SEED_BYTES), key) != Status::ok) std::abort();
    sig.resize(p.sig_bytes);
    const uint8_t rnd[RND_BYTES] = {};
    if (mldsa::sign(*key, msg, {}, rnd, sig.data()) != Status::ok) std::abort();  // expansions made here
  }
  // Deterministic nonce and sampler seed: the same signature on every backend.
  void falcon_sign(unsigned i) {
    uint8_t nonce[falcon::NONCE_BYTES], fseed[falcon::SEED_BYTES];
    std::memcpy(nonce, bytes, sizeof nonce);
    std::memcpy(fseed, bytes + 64, sizeof fseed);
    fseed[0] ^= static_cast<uint8_t>(i);
    if (!falcon::sign(fn->p, fn->sk.data(), msg.data(), msg.size(), nonce, fseed, falcon::SigFormat::compressed,
                      fn->sig.data(), &fn->siglen))
      std::abort();
  }
};

struct Kernel {
  const char* name;
  void (*run)(Inputs& in, unsigned i);
};

const Kernel kKernels[] = {
    {"keccakf1600", [](Inputs& in, unsigned i) { backend().keccakf1600(in.s1[i]); }},
    {"keccakf1600x4", [](Inputs& in, unsigned i) { backend().keccakf1600x4(in.s4[i]); }},
    {"ntt", [](Inputs& in, unsigned i) { backend().ntt(&in.a[i]); }},
    {"invntt_tomont", [](Inputs& in, unsigned i) { backend().invntt_tomont(&in.a[i]); }},
    {"pointwise_acc_l5", [](Inputs& in, unsigned) { backend().pointwise_acc(&in.out, in.b, in.a, 5); }},
    {"small_ntt", [](Inputs& in, unsigned) { backend().small_ntt(&in.sa, &in.small[2]); }},
    {"small_mul", [](Inputs& in, unsigned) { backend().small_mul(&in.out, &in.sa, &in.sb); }},
    {"expand_a_6x5", [](Inputs& in, unsigned) { backend().expand_a(in.a, in.seed, 6, 5); }},
    {"expand_s_11_eta4", [](Inputs& in, unsigned) { backend().expand_s(in.a, 11, in.seed, 4, 0); }},
    {"expand_mask_5_g19", [](Inputs& in, unsigned i) { backend().expand_mask(in.a, 5, in.seed, 5 * i, 19); }},
    {"decompose_w1", [](Inputs& in, unsigned) { backend().decompose_w1(&in.out, &in.out2, in.bytes, &in.c[0], (Q - 1) / 32); }},
    {"use_hint_w1", [](Inputs& in, unsigned) { backend().use_hint_w1(in.bytes, &in.c[0], &in.h, (Q - 1) / 32); }},
    {"pack_t0_13", [](Inputs& in, unsigned) { backend().pack_bits(in.bytes, &in.small[0], 13, 1 << 12, true); }},
    {"pack_z_20", [](Inputs& in, unsigned) { backend().pack_bits(in.bytes, &in.small[0], 20, 1 << 19, true); }},
    {"unpack_z_20", [](Inputs& in, unsigned) { backend().unpack_bits(&in.out, in.bytes, 20, 1 << 19, true); }},
    {"unpack_t1_10", [](Inputs& in, unsigned) { backend().unpack_bits(&in.out, in.bytes, 10, 0, false); }},
    {"exceeds", [](Inputs& in, unsigned) { backend().exceeds(&in.b[0], 1 << 19); }},
    {"add_reduce_exceeds", [](Inputs& in, unsigned) { backend().add_reduce_exceeds(&in.out, &in.c[0], &in.c[1], 1 << 19); }},
    {"make_hint", [](Inputs& in, unsigned) { backend().make_hint(&in.out, &in.small[0], &in.small[1], &in.c[0], (Q - 1) / 32); }},
    {"caddq", [](Inputs& in, unsigned i) { backend().caddq(&in.a[i]); }},
    {"power2round", [](Inputs& in, unsigned) { backend().power2round(&in.out, &in.out2, &in.a[0], &in.small[0]); }},
    {"hint_positions", [](Inputs& in, unsigned) { backend().hint_positions(in.bytes, &in.h); }},
    {"keygen_65", [](Inputs& in, unsigned i) {
       uint8_t seed[SEED_BYTES];
       std::memcpy(seed, in.seed, sizeof seed);
       seed[0] ^= static_cast<uint8_t>(i + 1);
       std::unique_ptr<PrivateKey> k;
       if (PrivateKey::from_seed(in.p, seed, k) != Status::ok) std::abort();
     }},
    {"sign_65", [](Inputs& in, unsigned) {
       const uint8_t rnd[RND_BYTES] = {};  // deterministic: the same attempts on every backend
       if (mldsa::sign(*in.key, in.msg, {}, rnd, in.sig.data()) != Status::ok) std::abort();
     }},
    {"verify_65", [](Inputs& in, unsigned) {
       if (mldsa::verify(in.key->public_key(), in.msg, {}, in.sig) != Status::ok) std::abort();
     }},
    {"falcon_sign_512", [](Inputs& in, unsigned i) { in.falcon_sign(i); }},
    {"falcon_verify_512", [](Inputs& in, unsigned) {
       if (!falcon::verify(in.fn->p, in.fn->pk.data(), in.msg.data(), in.msg.size(), in.fn->sig.data(), in.fn->siglen,
                           falcon::SigFormat::compressed))
         std::abort();
     }},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--list") {
    for (const Kernel& k : kKernels) std::printf("%s\n", k.name);
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s KERNEL CALLS | --list\n", argv[0]);
    return 2;
  }
  const unsigned calls = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
  if (calls > kMaxCalls) {
    std::fprintf(stderr, "at most %u calls\n", kMaxCalls);
    return 2;
  }
  for (const Kernel& k : kKernels) {
    if (std::string_view(argv[1]) != k.name) continue;
    const std::string_view name = k.name;
    auto in = std::make_unique<Inputs>(name.starts_with("sign") || name.starts_with("verify"),
                                       name.starts_with("falcon") ? &falcon::falcon512() : nullptr);
    for (unsigned i = 0; i < calls; ++i) k.run(*in, i);
    std::printf("%s %s %u\n", backend_name(), k.name, calls);
    return 0;
  }
  std::fprintf(stderr, "unknown kernel %s\n", argv[1]);
  return 2;
}
