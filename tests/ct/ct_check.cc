// ct_check.cc - constant-time check of keygen and signing, ML-DSA and round-3
// Dilithium (with --falcon: round-3 Falcon's signing), under valgrind memcheck
// or, built with MLDSA_CT_MSAN, under MemorySanitizer.
//
// Secret inputs (seed, rnd, secret-key bytes) are marked undefined; the
// checker then reports any branch or memory index that depends on them
// (memcheck: "Conditional jump or move depends on uninitialised value";
// MSan: "use-of-uninitialized-value"). The core, built with MLDSA_CT_TESTING,
// declassifies values that are public by design (rho, the rejection-loop
// verdicts, the signature) in cpu/ct.h. Outputs are marked defined here only
// where this program must compare them. Run outside valgrind (valgrind build),
// the client requests do nothing and this is a plain test.
//
// --falcon checks round-3 Falcon's signing instead (cpu/falcon): the private
// key (f, g, F; G, the basis in FFT form, the Gram matrix and the LDL tree
// are computed from it per call and inherit its marking) and the sampler
// seed are secret; the verdicts that cpu/falcon declassifies are the
// specification's public ones (see docs/FALCON.md). Falcon's key generation
// (NTRUSolve) is not constant time and is not checked: the keys are made
// from defined seeds before anything is marked.
//
// Controls, which must be reported (ctest expects them to fail):
//   --branch-on-secret     a branch on a secret byte in this program
//   --no-declassify        signing with the core's declassification points off
//                          (after --falcon: Falcon's)
// Exit 77 (skipped) when MLDSA_ACCEL_CPU names a backend this CPU cannot run.

#ifdef MLDSA_CT_MSAN
#include <sanitizer/msan_interface.h>
#else
#include <valgrind/memcheck.h>
#endif

#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cpu/ct.h"
#include "cpu/backend.h"
#include "cpu/mldsa.h"
#include "cpu/falcon/check.h"
#include "cpu/falcon/falcon.h"

#include <cstdlib>

#ifdef MLDSA_CT_MSAN
// A report must fail the test: MSan's own exit code (77) is ctest's "skipped".
extern "C" const char* __msan_default_options() { return "exitcode=3:halt_on_error=1"; }
#endif

namespace {

using mldsa::Status;

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "ct_check: FAILED: %s\n", what.c_str());
    ++failures;
  }
}

#ifdef MLDSA_CT_MSAN
void mark_secret(void* p, size_t n) { __msan_poison(p, n); }
void mark_public(const void* p, size_t n) { __msan_unpoison(p, n); }
const char* checker() { return "under MemorySanitizer"; }
#else
void mark_secret(void* p, size_t n) { VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
void mark_public(const void* p, size_t n) { VALGRIND_MAKE_MEM_DEFINED(p, n); }
const char* checker() { return RUNNING_ON_VALGRIND ? "under valgrind" : "NOT under valgrind (no constant-time check)"; }
#endif

// Signs a few messages with key (its secrets undefined), then checks each
// signature with a public key decoded from defined bytes.
void sign_messages(const mldsa::PrivateKey& key, const std::string& label) {
  const mldsa::Params& p = key.params();
  std::vector<uint8_t> pk(key.public_key().encoded().begin(), key.public_key().encoded().end());
  mark_public(pk.data(), pk.size());
  std::unique_ptr<mldsa::PublicKey> pub;
  expect(mldsa::PublicKey::decode(p, pk, pub) == Status::ok, label + ": decode pk");
  if (!pub) return;

  const std::string messages[] = {"", "abc", std::string(300, 'x')};
  // Round 3 has no context; its first message is signed deterministically
  // (zero rnd, still marked secret), the others with a secret rho''.
  const bool round3 = p.scheme == mldsa::Scheme::dilithium_r3;
  const uint8_t ctx_bytes[] = {'c', 't'};
  const std::span<const uint8_t> ctx = round3 ? std::span<const uint8_t>() : std::span<const uint8_t>(ctx_bytes);
  for (size_t i = 0; i < std::size(messages); ++i) {
    std::vector<uint8_t> msg(messages[i].begin(), messages[i].end());
    std::vector<uint8_t> rnd(p.rnd_bytes, round3 && i == 0 ? 0 : static_cast<uint8_t>(0x40 + i));
    mark_secret(rnd.data(), rnd.size());
    std::vector<uint8_t> sig(p.sig_bytes);
    Status st = mldsa::sign(key, msg, ctx, rnd.data(), sig.data());
    mark_public(&st, sizeof st);
    expect(st == Status::ok, label + ": sign message " + std::to_string(i));
    mark_public(sig.data(), sig.size());
    expect(mldsa::verify(*pub, msg, ctx, sig) == Status::ok, label + ": verify message " + std::to_string(i));

    // External mu with a secret rnd too (the path the provider's mu mode takes).
    uint8_t mu[mldsa::MU_BYTES];
    mldsa::MuBuilder b;
    expect(b.init_message(p, pub->tr(), ctx) == Status::ok, label + ": init_message");
    b.update(msg);
    b.final(mu);
    mark_secret(rnd.data(), rnd.size());
    st = mldsa::sign_mu(key, mu, rnd.data(), sig.data());
    mark_public(&st, sizeof st);
    expect(st == Status::ok, label + ": sign_mu message " + std::to_string(i));
    mark_public(sig.data(), sig.size());
    expect(mldsa::verify_mu(*pub, mu, sig) == Status::ok, label + ": verify_mu message " + std::to_string(i));
  }
}

// The harness's own check: a branch on a secret byte, which memcheck must
// report (ctest expects this run to fail).
int branch_on_secret() {
  volatile uint8_t secret = 1;
  mark_secret(const_cast<uint8_t*>(&secret), 1);
  uint8_t v = secret;
  if (v == 1) std::printf("ct_check: branched on a secret byte\n");
  return 0;
}


// ML-DSA.Sign on the encoded secret key (skDecode and expansion per call).
void sign_encoded(const mldsa::Params& p, std::vector<uint8_t> sk, const mldsa::PublicKey& pub,
                  const std::string& label) {
  const uint8_t msg[] = {'m', 's', 'g'};
  std::vector<uint8_t> rnd(p.rnd_bytes, 0x5a);
  mark_secret(sk.data(), sk.size());
  mark_secret(rnd.data(), rnd.size());
  std::vector<uint8_t> sig(p.sig_bytes);
  Status st = mldsa::sign_encoded(p, sk, msg, {}, rnd.data(), sig.data());
  mark_public(&st, sizeof st);
  expect(st == Status::ok, label + ": sign_encoded");
  mark_public(sig.data(), sig.size());
  expect(mldsa::verify(pub, msg, {}, sig) == Status::ok, label + ": verify sign_encoded");
}

// Falcon: signs three messages in both formats with a secret private key
// and a secret sampler seed (the nonce is public: it is in the signature),
// then verifies with public bytes. The private-key check of the provider's
// import runs on the secret key too.
void falcon_check(const falcon::Params& p) {
  const std::string name = p.name;
  std::vector<uint8_t> pk(p.pk_bytes), sk(p.sk_bytes);
  uint8_t kseed[falcon::SEED_BYTES];
  for (size_t i = 0; i < sizeof kseed; ++i) kseed[i] = static_cast<uint8_t>(i * 7 + p.logn);
  falcon::keygen(p, kseed, pk.data(), sk.data());  // not checked: NTRUSolve is not constant time
  // The header byte (0x50 + logn) is public: it names the parameter set.
  mark_secret(sk.data() + 1, sk.size() - 1);
  falcon::Problem pr = falcon::check_private_key(p, sk.data(), sk.size());
  mark_public(&pr, sizeof pr);
  expect(pr == falcon::Problem::none, name + ": check_private_key");
  std::vector<uint8_t> derived(p.pk_bytes);
  bool ok = falcon::public_from_private(p, sk.data(), derived.data());
  mark_public(&ok, sizeof ok);
  mark_public(derived.data(), derived.size());  // h is the public key
  expect(ok && derived == pk, name + ": public_from_private");

  const std::string messages[] = {"", "abc", std::string(300, 'x')};
  for (size_t i = 0; i < std::size(messages); ++i) {
    for (falcon::SigFormat fmt : {falcon::SigFormat::compressed, falcon::SigFormat::padded}) {
      const std::string label = name + (fmt == falcon::SigFormat::padded ? " padded" : "") + " message " +
                                std::to_string(i);
      std::vector<uint8_t> msg(messages[i].begin(), messages[i].end());
      uint8_t nonce[falcon::NONCE_BYTES], seed[falcon::SEED_BYTES];
      for (size_t j = 0; j < sizeof nonce; ++j) nonce[j] = static_cast<uint8_t>(0x11 * i + j);
      for (size_t j = 0; j < sizeof seed; ++j) seed[j] = static_cast<uint8_t>(0x33 * i + 3 * j + 1);
      mark_secret(seed, sizeof seed);
      std::vector<uint8_t> sig(fmt == falcon::SigFormat::padded ? p.sig_padded_bytes : p.sig_max_bytes);
      size_t len = 0;
      ok = falcon::sign(p, sk.data(), msg.data(), msg.size(), nonce, seed, fmt, sig.data(), &len);
      mark_public(&ok, sizeof ok);
      expect(ok, label + ": sign");
      if (!ok) continue;
      mark_public(&len, sizeof len);
      mark_public(sig.data(), len);
      expect(falcon::verify(p, pk.data(), msg.data(), msg.size(), sig.data(), len, fmt), label + ": verify");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string flag = argc > 1 ? argv[1] : "";
  if (flag == "--branch-on-secret") return branch_on_secret();
  const bool falcon_mode = flag == "--falcon";
  if (flag == "--no-declassify" || (falcon_mode && argc > 2 && std::string(argv[2]) == "--no-declassify"))
    mldsa::ct_declassify_disabled = true;
  if (falcon_mode) {
    std::printf("ct_check: Falcon signing, %s%s\n", checker(),
                mldsa::ct_declassify_disabled ? ", declassification off (must be reported)" : "");
    for (const falcon::Params* p : {&falcon::falcon512(), &falcon::falcon1024()}) falcon_check(*p);
    std::printf("ct_check: %s\n", failures ? "FAILED" : "done");
    return failures ? 2 : 0;
  }
  // MLDSA_ACCEL_CPU is "<backend>" or "<backend>@<tuning>": the core runs
  // that table, or this CPU cannot run the backend.
  const char* wanted = std::getenv("MLDSA_ACCEL_CPU");
  const mldsa::Backend& be = mldsa::backend();
  const std::string active = be.name + std::string("@") + be.tuning;
  if (wanted != nullptr && *wanted != '\0' && std::strcmp(wanted, "auto") != 0 && wanted != std::string(be.name) &&
      wanted != active) {
    std::printf("skipped: this CPU cannot run the %s backend (using %s)\n", wanted, active.c_str());
    return 77;
  }
  std::printf("ct_check: backend %s, %s%s\n", active.c_str(), checker(),
              mldsa::ct_declassify_disabled ? ", declassification off (must be reported)" : "");
  for (mldsa::ParamSet id : {mldsa::ParamSet::ML_DSA_44, mldsa::ParamSet::ML_DSA_65, mldsa::ParamSet::ML_DSA_87,
                             mldsa::ParamSet::DILITHIUM2, mldsa::ParamSet::DILITHIUM3, mldsa::ParamSet::DILITHIUM5}) {
    const mldsa::Params& p = mldsa::params(id);
    const std::string name = p.name;

    // KeyGen from a secret seed.
    std::vector<uint8_t> seed(mldsa::SEED_BYTES);
    for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<uint8_t>(i * 5 + static_cast<int>(id));
    mark_secret(seed.data(), seed.size());
    std::unique_ptr<mldsa::PrivateKey> key;
    Status st = mldsa::PrivateKey::from_seed(p, seed, key);
    mark_public(&st, sizeof st);
    expect(st == Status::ok, name + ": from_seed");
    if (!key) continue;
    sign_messages(*key, name + " (seed)");

    // Loading a secret sk (decode plus range/t0/tr checks), then signing with it.
    std::vector<uint8_t> sk(key->encoded().begin(), key->encoded().end());
    mark_secret(sk.data(), sk.size());
    std::unique_ptr<mldsa::PrivateKey> loaded;
    st = mldsa::PrivateKey::from_sk(p, sk, loaded);
    mark_public(&st, sizeof st);
    expect(st == Status::ok, name + ": from_sk");
    if (loaded) sign_messages(*loaded, name + " (sk)");
    sign_encoded(p, std::vector<uint8_t>(key->encoded().begin(), key->encoded().end()), key->public_key(), name);
  }
  std::printf("ct_check: %s\n", failures ? "FAILED" : "done");
  return failures ? 2 : 0;
}
