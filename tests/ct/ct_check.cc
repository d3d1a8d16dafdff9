// ct_check.cc - constant-time check of keygen and signing under valgrind.
//
// Secret inputs (seed, rnd, secret-key bytes) are marked undefined; memcheck
// then reports any branch or memory index that depends on them ("Conditional
// jump or move depends on uninitialised value", "Use of uninitialised value").
// The core, built with MLDSA_CT_TESTING, declassifies values that are public by
// design (rho, the rejection-loop verdicts, the signature) in cpu/ct.h. Outputs
// are marked defined here only where this program must compare them.
// Run outside valgrind, the client requests do nothing and this is a plain test.

#include <valgrind/memcheck.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cpu/mldsa.h"

namespace {

using mldsa::Status;

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "ct_check: FAILED: %s\n", what.c_str());
    ++failures;
  }
}

void mark_secret(void* p, size_t n) { VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
void mark_public(const void* p, size_t n) { VALGRIND_MAKE_MEM_DEFINED(p, n); }

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
  const uint8_t ctx[] = {'c', 't'};
  for (size_t i = 0; i < std::size(messages); ++i) {
    std::vector<uint8_t> msg(messages[i].begin(), messages[i].end());
    std::vector<uint8_t> rnd(mldsa::RND_BYTES, static_cast<uint8_t>(0x40 + i));
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
    expect(b.init_pure(pub->tr(), ctx) == Status::ok, label + ": init_pure");
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

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--branch-on-secret") == 0) return branch_on_secret();
  std::printf("ct_check: backend %s, %s\n", mldsa::backend_name(),
              RUNNING_ON_VALGRIND ? "under valgrind" : "NOT under valgrind (no constant-time check)");
  for (mldsa::ParamSet id : {mldsa::ParamSet::ML_DSA_44, mldsa::ParamSet::ML_DSA_65, mldsa::ParamSet::ML_DSA_87}) {
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
  }
  std::printf("ct_check: %s\n", failures ? "FAILED" : "done");
  return failures ? 2 : 0;
}
