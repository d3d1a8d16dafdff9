// acvp_test.cc - NIST ACVP known-answer tests for the core (keyGen, sigGen,
// sigGen-tr1, sigVer), one GoogleTest test per ACVP test group.
//
// Every case of a group runs; a failing case is reported with its tgId/tcId and
// the loop goes on. A case the core cannot handle (e.g. a hash it does not know)
// is counted as skipped, and a group with skipped cases ends skipped, never passed.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cpu/mldsa.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/backend_request.h"
#include "tests/core/reference_hash.h"

namespace mldsa::test {
namespace {

struct GroupRef {
  std::string file;   // "sigGen-tr1.txt"
  int tg_id = 0;      // 0: the file could not be loaded (load_error says why)
  std::string label;  // test name suffix
  std::string load_error;
};

void PrintTo(const GroupRef& g, std::ostream* os) { *os << g.file << " tgId=" << g.tg_id; }

struct Outcome {
  enum Kind { pass, skip, fail } kind = pass;
  std::string why;
  static Outcome ok() { return {}; }
  static Outcome skipped(std::string w) { return {skip, std::move(w)}; }
  static Outcome failed(std::string w) { return {fail, std::move(w)}; }
};

std::string status_text(Status s) { return status_string(s); }

// Index of the first differing byte, for mismatch messages.
std::string first_difference(const std::vector<uint8_t>& got, std::span<const uint8_t> want) {
  if (got.size() != want.size())
    return "length " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  auto m = std::mismatch(got.begin(), got.end(), want.begin());
  return "first difference at byte " + std::to_string(m.first - got.begin()) + " of " + std::to_string(got.size());
}

// Label from the group's options: "tg13_ML_DSA_44_internal_mu_seed_det".
std::string group_label(const AcvpRecord& r) {
  std::string s = "tg" + r.text("tgId") + "_" + r.text("parameterSet");
  const std::string& iface = r.text("signatureInterface");
  if (iface == "external") s += r.text("preHash") == "preHash" ? "_prehash" : "_pure";
  if (iface == "internal") s += r.flag("externalMu") ? "_internal_mu" : "_internal";
  if (r.has("keyFormat")) s += "_" + r.text("keyFormat");
  if (r.has("deterministic")) s += r.flag("deterministic") ? "_det" : "_hedged";
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

std::vector<GroupRef> groups_of(const std::string& file) {
  const AcvpFile& f = load_acvp(file);
  if (!f.error.empty() || f.records.empty())
    return {GroupRef{file, 0, "load_error", f.error.empty() ? f.path + ": no records" : f.error}};
  std::vector<GroupRef> out;
  std::set<int> seen;
  for (const AcvpRecord& r : f.records)
    if (seen.insert(r.tg_id()).second) out.push_back(GroupRef{file, r.tg_id(), group_label(r), ""});
  return out;
}

// The HashML-DSA digest of the record's message: SHA-2 from OpenSSL (the core
// leaves SHA-2 to its caller), SHA-3/SHAKE from the core's prehash_digest.
Outcome prehash(const AcvpRecord& r, HashAlg& h, std::vector<uint8_t>& digest) {
  if (!hash_from_name(r.text("hashAlg"), h)) return Outcome::skipped("core does not know hashAlg " + r.text("hashAlg"));
  std::vector<uint8_t> msg = r.bytes("message");
  switch (h) {
    case HashAlg::SHA2_224: case HashAlg::SHA2_256: case HashAlg::SHA2_384: case HashAlg::SHA2_512:
    case HashAlg::SHA2_512_224: case HashAlg::SHA2_512_256:
      digest = openssl_digest(h, msg);
      if (digest.empty()) return Outcome::failed(std::string("OpenSSL cannot compute ") + openssl_md_name(h));
      return Outcome::ok();
    default:
      digest.assign(hash_digest_bytes(h), 0);
      Status st = prehash_digest(h, msg, digest.data());
      if (st == Status::unsupported_hash) return Outcome::skipped("prehash_digest does not support " + r.text("hashAlg"));
      if (st != Status::ok) return Outcome::failed("prehash_digest: " + status_text(st));
      return Outcome::ok();
  }
}

// Verifies sig over the record's message/mu through the record's interface.
Outcome verify_record(const PublicKey& pub, const AcvpRecord& r, std::span<const uint8_t> sig, Status& st) {
  const std::string& iface = r.text("signatureInterface");
  if (iface == "external") {
    std::vector<uint8_t> ctx = r.bytes("context");
    if (r.text("preHash") == "pure") {
      st = verify(pub, r.bytes("message"), ctx, sig);
      // The one-shot path from the encoded pk gives the same answer.
      const Status one_shot = verify_encoded(pub.params(), pub.encoded(), r.bytes("message"), ctx, sig);
      if (one_shot != st) return Outcome::failed("verify_encoded: " + status_text(one_shot) + ", verify: " + status_text(st));
      return Outcome::ok();
    }
    if (r.text("preHash") != "preHash") return Outcome::failed("unknown preHash " + r.text("preHash"));
    HashAlg h;
    std::vector<uint8_t> digest;
    Outcome o = prehash(r, h, digest);
    if (o.kind != Outcome::pass) return o;
    st = verify_prehash(pub, h, digest, ctx, sig);
    if (st == Status::unsupported_hash) return Outcome::skipped("verify_prehash: unsupported_hash for " + r.text("hashAlg"));
    return Outcome::ok();
  }
  if (iface == "internal") {
    st = r.flag("externalMu") ? verify_mu(pub, r.bytes("mu"), sig) : verify_internal(pub, r.bytes("message"), sig);
    return Outcome::ok();
  }
  return Outcome::failed("unknown signatureInterface " + iface);
}

Outcome run_keygen(const Params& p, const AcvpRecord& r) {
  std::vector<uint8_t> seed = r.bytes("seed"), pk = r.bytes("pk"), sk = r.bytes("sk");
  std::unique_ptr<PrivateKey> key;
  Status st = PrivateKey::from_seed(p, seed, key);
  if (st != Status::ok) return Outcome::failed("from_seed: " + status_text(st));
  if (!std::ranges::equal(key->public_key().encoded(), pk))
    return Outcome::failed("pk mismatch: " + first_difference(pk, key->public_key().encoded()));
  if (!std::ranges::equal(key->encoded(), sk)) return Outcome::failed("sk mismatch: " + first_difference(sk, key->encoded()));
  if (!key->has_seed() || !std::ranges::equal(key->seed(), seed)) return Outcome::failed("key does not keep its seed");
  // The expected sk must load too, and imply the same pk.
  std::unique_ptr<PrivateKey> loaded;
  st = PrivateKey::from_sk(p, sk, loaded);
  if (st != Status::ok) return Outcome::failed("from_sk of the expected sk: " + status_text(st));
  if (loaded->has_seed()) return Outcome::failed("a key loaded from sk claims a seed");
  if (!std::ranges::equal(loaded->public_key().encoded(), pk)) return Outcome::failed("from_sk implies another pk");
  return Outcome::ok();
}

Outcome run_siggen(const Params& p, const AcvpRecord& r) {
  // tr1 keyFormat "seed" gives xi, "expanded" (and the original revision) the sk.
  std::unique_ptr<PrivateKey> key;
  const std::string& format = r.text("keyFormat");
  if (format == "seed" || (format.empty() && r.has("seed"))) {
    Status st = PrivateKey::from_seed(p, r.bytes("seed"), key);
    if (st != Status::ok) return Outcome::failed("from_seed: " + status_text(st));
  } else if (format == "expanded" || format.empty()) {
    Status st = PrivateKey::from_sk(p, r.bytes("sk"), key);
    if (st != Status::ok) return Outcome::failed("from_sk: " + status_text(st));
  } else {
    return Outcome::failed("unknown keyFormat " + format);
  }

  std::vector<uint8_t> rnd(RND_BYTES, 0);  // deterministic: 32 zero bytes
  if (!r.flag("deterministic")) {
    rnd = r.bytes("rnd");
    if (rnd.size() != RND_BYTES) return Outcome::failed("rnd is not 32 bytes");
  }

  std::vector<uint8_t> sig(p.sig_bytes);
  Status st;
  const std::string& iface = r.text("signatureInterface");
  if (iface == "external") {
    std::vector<uint8_t> ctx = r.bytes("context");
    if (r.text("preHash") == "pure") {
      st = sign(*key, r.bytes("message"), ctx, rnd.data(), sig.data());
    } else if (r.text("preHash") == "preHash") {
      HashAlg h;
      std::vector<uint8_t> digest;
      Outcome o = prehash(r, h, digest);
      if (o.kind != Outcome::pass) return o;
      st = sign_prehash(*key, h, digest, ctx, rnd.data(), sig.data());
      if (st == Status::unsupported_hash) return Outcome::skipped("sign_prehash: unsupported_hash for " + r.text("hashAlg"));
    } else {
      return Outcome::failed("unknown preHash " + r.text("preHash"));
    }
  } else if (iface == "internal") {
    st = r.flag("externalMu") ? sign_mu(*key, r.bytes("mu"), rnd.data(), sig.data())
                              : sign_internal(*key, r.bytes("message"), rnd.data(), sig.data());
  } else {
    return Outcome::failed("unknown signatureInterface " + iface);
  }
  if (st != Status::ok) return Outcome::failed("sign: " + status_text(st));
  std::vector<uint8_t> want = r.bytes("signature");
  if (sig != want) return Outcome::failed("signature mismatch: " + first_difference(sig, want));
  // One-shot signing from the encoded sk gives the same bytes.
  if (iface == "external" && r.text("preHash") == "pure") {
    std::vector<uint8_t> one_shot(p.sig_bytes);
    st = sign_encoded(p, key->encoded(), r.bytes("message"), r.bytes("context"), rnd.data(), one_shot.data());
    if (st != Status::ok) return Outcome::failed("sign_encoded: " + status_text(st));
    if (one_shot != want) return Outcome::failed("sign_encoded mismatch: " + first_difference(one_shot, want));
  }

  // What we sign must verify through the same interface.
  Outcome o = verify_record(key->public_key(), r, sig, st);
  if (o.kind != Outcome::pass) return o;
  if (st != Status::ok) return Outcome::failed("own signature does not verify: " + status_text(st));
  return Outcome::ok();
}

Outcome run_sigver(const Params& p, const AcvpRecord& r) {
  std::unique_ptr<PublicKey> pub;
  Status st = PublicKey::decode(p, r.bytes("pk"), pub);
  if (st != Status::ok) return Outcome::failed("PublicKey::decode: " + status_text(st));
  Outcome o = verify_record(*pub, r, r.bytes("signature"), st);
  if (o.kind != Outcome::pass) return o;
  bool want = r.flag("testPassed");
  std::string detail = " (" + r.text("reason") + ")";
  if (want && st != Status::ok) return Outcome::failed("valid signature rejected: " + status_text(st) + detail);
  if (!want && st == Status::ok) return Outcome::failed("invalid signature accepted" + detail);
  // A rejection must be a verdict on the signature, not a length or key error.
  if (!want && st != Status::verify_failed && st != Status::sig_malformed_hint)
    return Outcome::failed("rejected with an unexpected status: " + status_text(st) + detail);
  return Outcome::ok();
}

class AcvpGroup : public BackendTest, public ::testing::WithParamInterface<GroupRef> {};

TEST_P(AcvpGroup, AllCases) {
  const GroupRef& g = GetParam();
  ASSERT_TRUE(g.load_error.empty()) << g.load_error;
  const AcvpFile& f = load_acvp(g.file);
  size_t passed = 0, failed = 0;
  std::vector<std::string> skipped;
  for (const AcvpRecord& r : f.records) {
    if (r.tg_id() != g.tg_id) continue;
    Outcome o;
    const Params* p = params_by_name(r.text("parameterSet"));
    if (!p) {
      o = Outcome::failed("unknown parameterSet " + r.text("parameterSet"));
    } else {
      try {
        if (g.file == "keyGen.txt") o = run_keygen(*p, r);
        else if (g.file == "sigVer.txt") o = run_sigver(*p, r);
        else o = run_siggen(*p, r);
      } catch (const std::exception& e) {  // bad hex or number in the file
        o = Outcome::failed(std::string("bad record: ") + e.what());
      }
    }
    switch (o.kind) {
      case Outcome::pass: ++passed; break;
      case Outcome::fail: ++failed; ADD_FAILURE() << g.file << " " << r.id() << ": " << o.why; break;
      case Outcome::skip: skipped.push_back(r.id() + ": " + o.why); break;
    }
  }
  std::cout << "[ ACVP     ] " << g.file << " tgId=" << g.tg_id << " (" << mldsa::backend_name() << "): " << passed
            << " passed, " << failed << " failed, " << skipped.size() << " skipped\n";
  RecordProperty("passed", static_cast<int>(passed));
  RecordProperty("failed", static_cast<int>(failed));
  RecordProperty("skipped", static_cast<int>(skipped.size()));
  EXPECT_GT(passed + failed + skipped.size(), 0u) << "group has no cases";
  if (failed == 0 && !skipped.empty()) {
    std::ostringstream why;
    for (const std::string& s : skipped) why << "\n  " << s;
    GTEST_SKIP() << "skipped: " << skipped.size() << " case(s) the core cannot handle:" << why.str();
  }
}

std::string name_of(const ::testing::TestParamInfo<GroupRef>& info) { return info.param.label; }

INSTANTIATE_TEST_SUITE_P(keyGen, AcvpGroup, ::testing::ValuesIn(groups_of("keyGen.txt")), name_of);
INSTANTIATE_TEST_SUITE_P(sigGen, AcvpGroup, ::testing::ValuesIn(groups_of("sigGen.txt")), name_of);
INSTANTIATE_TEST_SUITE_P(sigGenTr1, AcvpGroup, ::testing::ValuesIn(groups_of("sigGen-tr1.txt")), name_of);
INSTANTIATE_TEST_SUITE_P(sigVer, AcvpGroup, ::testing::ValuesIn(groups_of("sigVer.txt")), name_of);

// The files hold every ACVP group (the converter trims cases, never groups), so a
// file that lost groups or records fails here rather than testing less.
TEST(AcvpFiles, EveryGroupPresent) {
  struct Want { const char* file; size_t groups, records; };
  for (Want w : {Want{"keyGen.txt", 3, 75}, Want{"sigGen.txt", 24, 72}, Want{"sigGen-tr1.txt", 48, 192},
                 Want{"sigVer.txt", 12, 180}}) {
    const AcvpFile& f = load_acvp(w.file);
    ASSERT_TRUE(f.error.empty()) << f.error;
    EXPECT_EQ(f.records.size(), w.records) << w.file;
    EXPECT_EQ(groups_of(w.file).size(), w.groups) << w.file;
  }
}

}  // namespace
}  // namespace mldsa::test
