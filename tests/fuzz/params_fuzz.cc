// params_fuzz.cc - every settable parameter of the signature, keygen, import
// and encoder operations (and parameters handed to the decoders), with
// fuzzed names, types, sizes, data (NULL too) and duplicates. What must hold:
//  - a call that fails leaves a named error (provider_env.h);
//  - a signature verifies with the parameters it was made with, and not once
//    any byte of the message, of the signature, or of the context string
//    (where the context is part of M') changes;
//  - deterministic signing (deterministic = 1, or test-entropy) repeats its
//    bytes, streamed or one-shot, and equals EVP_PKEY_sign's (but for a
//    digest input); hedged signing does not repeat;
//  - a parameter that shapes M' is refused once message data has arrived;
//  - a key from keygen or import signs what it verifies and survives export /
//    import; a seeded keygen is reproducible;
//  - an encoding that succeeds decodes back to the same key.
//
// Input (provider_env.h's Input): operation (mod 4: sign, keygen, import,
// encode), parameter set (mod 6: ML-DSA-44/65/87, dilithium2/3/5), then per
// operation (see each run_*). A parameter list is a count (mod 6), then per
// parameter: name (mod 14: kNames, or 13: a fuzzed name of up to 7 bytes),
// type (mod 7: kTypes), form (mod 4: NULL data of a fuzzed size, bit 2 asking
// a _PTR type for a pointer to NULL instead; a length byte (255: then two
// more) and that many bytes in a buffer of exactly that size; the same
// followed by a NUL; a part of the set's fixed key (kParts), then a 16-bit
// position and a byte XORed in there). tests/fuzz/make_corpus.py writes seeds
// that reach each operation with well-formed parameters.
#include "tests/fuzz/provider_env.h"

#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/params.h>

#include <cstring>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

using mldsa::fuzz::expect_named_error;
using mldsa::fuzz::fail;
using mldsa::fuzz::Input;
using mldsa::fuzz::libctx;
using Bytes = std::vector<uint8_t>;

constexpr const char* kSets[] = {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "dilithium2", "dilithium3", "dilithium5"};
constexpr size_t kSetCount = 6;
bool is_round3(size_t set) { return set >= 3; }

// Every parameter name any of the operations reads, and one it only writes.
constexpr const char* kNames[] = {"context-string", "deterministic", "test-entropy", "mu",     "message-encoding",
                                  "signature",      "hash-ml-dsa",   "seed",         "priv",   "pub",
                                  "properties",     "cipher",        "algorithm-id"};
constexpr size_t kNameCount = sizeof(kNames) / sizeof(kNames[0]);
constexpr unsigned int kTypes[] = {OSSL_PARAM_INTEGER,     OSSL_PARAM_UNSIGNED_INTEGER, OSSL_PARAM_REAL,
                                   OSSL_PARAM_UTF8_STRING, OSSL_PARAM_OCTET_STRING,     OSSL_PARAM_UTF8_PTR,
                                   OSSL_PARAM_OCTET_PTR};
// The names that shape M' (refused after message data).
constexpr const char* kShaping[] = {"context-string", "mu", "message-encoding", "hash-ml-dsa"};

const uint8_t kMessage[] = {'p', 'a', 'r', 'a', 'm', 's'};

// One key per parameter set, made from a fixed seed at start-up, with its
// parts (the form-3 parameter values) and a public-only copy.
struct Fixed {
  EVP_PKEY* full = nullptr;
  EVP_PKEY* pub = nullptr;
  Bytes parts[5];  // seed, priv, pub, a signature of kMessage, 32 bytes of entropy
};
enum Part { kSeed, kPriv, kPub, kSig, kEntropy };

Bytes octet_param(const EVP_PKEY* pkey, const char* name) {
  size_t len = 0;
  if (EVP_PKEY_get_octet_string_param(pkey, name, nullptr, 0, &len) != 1) return {};
  Bytes out(len);
  if (EVP_PKEY_get_octet_string_param(pkey, name, out.data(), out.size(), &len) != 1) return {};
  return out;
}

EVP_PKEY* import(const char* name, int selection, const OSSL_PARAM* params) {
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx(), name, nullptr);
  EVP_PKEY* pkey = nullptr;
  if (ctx == nullptr || EVP_PKEY_fromdata_init(ctx) != 1 ||
      EVP_PKEY_fromdata(ctx, &pkey, selection, const_cast<OSSL_PARAM*>(params)) != 1)
    pkey = nullptr;
  EVP_PKEY_CTX_free(ctx);
  return pkey;
}

// Deterministic one-shot signature and its verification with no parameters.
Bytes plain_sign(EVP_PKEY* pkey) {
  int det = 1;
  OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  Bytes sig(5000);
  size_t len = sig.size();
  if (md == nullptr || EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx(), nullptr, pkey, p) != 1 ||
      EVP_DigestSign(md, sig.data(), &len, kMessage, sizeof kMessage) != 1)
    len = 0;
  EVP_MD_CTX_free(md);
  sig.resize(len);
  return sig;
}
bool plain_verify(EVP_PKEY* pkey, const Bytes& sig) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  const bool ok = md != nullptr &&
                  EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx(), nullptr, pkey, nullptr) == 1 &&
                  EVP_DigestVerify(md, sig.data(), sig.size(), kMessage, sizeof kMessage) == 1;
  EVP_MD_CTX_free(md);
  return ok;
}

const Fixed& fixed(size_t set) {
  // Never destroyed: still reachable at exit, so no leak report.
  static const std::vector<Fixed>& all = *new std::vector<Fixed>([] {
    std::vector<Fixed> out(kSetCount);
    for (size_t i = 0; i < kSetCount; ++i) {
      Fixed& f = out[i];
      Bytes seed(32);
      for (size_t j = 0; j < seed.size(); ++j) seed[j] = static_cast<uint8_t>(j * 7 + i);
      OSSL_PARAM p[] = {OSSL_PARAM_octet_string("seed", seed.data(), seed.size()), OSSL_PARAM_END};
      EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx(), kSets[i], nullptr);
      if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_params(ctx, p) != 1 ||
          EVP_PKEY_keygen(ctx, &f.full) != 1)
        fail("keygen");
      EVP_PKEY_CTX_free(ctx);
      f.parts[kSeed] = seed;
      f.parts[kPriv] = octet_param(f.full, "priv");
      f.parts[kPub] = octet_param(f.full, "pub");
      f.parts[kSig] = plain_sign(f.full);
      f.parts[kEntropy] = Bytes(32, 0xe5);
      OSSL_PARAM q[] = {OSSL_PARAM_octet_string("pub", f.parts[kPub].data(), f.parts[kPub].size()), OSSL_PARAM_END};
      f.pub = import(kSets[i], EVP_PKEY_PUBLIC_KEY, q);
      if (f.pub == nullptr || f.parts[kPriv].empty() || f.parts[kSig].empty()) fail("fixed keys");
    }
    return out;
  }());
  return all[set];
}

// A fuzzed parameter list and the storage it points into.
class ParamList {
 public:
  ParamList(Input& in, size_t set) {
    const size_t count = in.byte() % 6;
    for (size_t i = 0; i < count; ++i) add(in, set);
    params_.push_back(OSSL_PARAM_construct_end());
  }
  const OSSL_PARAM* get() const { return params_.data(); }
  bool empty() const { return params_.size() == 1; }
  bool has(const char* name) const { return OSSL_PARAM_locate_const(get(), name) != nullptr; }

 private:
  void add(Input& in, size_t set) {
    OSSL_PARAM p{};
    const size_t n = in.byte() % (kNameCount + 1);
    if (n < kNameCount) {
      p.key = kNames[n];
    } else {
      Bytes raw = in.bytes(in.byte() % 8);
      names_.emplace_back(raw.begin(), raw.end());
      names_.back() = names_.back().c_str();  // up to the first NUL
      p.key = names_.back().c_str();
    }
    p.data_type = kTypes[in.byte() % 7];
    const bool ptr_type = p.data_type == OSSL_PARAM_UTF8_PTR || p.data_type == OSSL_PARAM_OCTET_PTR;
    const uint8_t form = in.byte();
    Bytes value;
    bool terminate = false;
    switch (form % 4) {
      case 0:  // NULL data, or a _PTR to NULL
        p.data_size = in.byte();
        if (ptr_type && (form & 4) != 0) {
          pointers_.push_back(std::make_unique<void*>(nullptr));
          p.data = pointers_.back().get();
        }
        params_.push_back(p);
        return;
      case 1:
      case 2: {
        size_t len = in.byte();
        if (len == 255) len = in.u16() % 8192;
        value = in.bytes(len);
        terminate = form % 4 == 2;
        break;
      }
      default: {
        value = fixed(set).parts[in.byte() % 5];
        const size_t pos = in.u16();
        const uint8_t flip = in.byte();
        if (!value.empty()) value[pos % value.size()] ^= flip;
        break;
      }
    }
    // A string of size 0 is NUL-terminated by convention (OSSL_PARAM_utf8_string(key, buf, 0)).
    const bool text = p.data_type == OSSL_PARAM_UTF8_STRING || p.data_type == OSSL_PARAM_UTF8_PTR;
    if (value.empty() && text) terminate = true;
    // Exactly the bytes (and the NUL if asked): ASan catches any read past them.
    auto buffer = std::make_unique<uint8_t[]>(value.size() + (terminate ? 1 : 0));
    if (!value.empty()) std::memcpy(buffer.get(), value.data(), value.size());
    if (terminate) buffer[value.size()] = 0;
    p.data_size = value.size();
    if (ptr_type) {
      pointers_.push_back(std::make_unique<void*>(buffer.get()));
      p.data = pointers_.back().get();
    } else {
      p.data = buffer.get();
    }
    buffers_.push_back(std::move(buffer));
    params_.push_back(p);
  }

  std::deque<std::string> names_;  // a deque: its strings never move
  std::vector<std::unique_ptr<uint8_t[]>> buffers_;
  std::vector<std::unique_ptr<void*>> pointers_;
  std::vector<OSSL_PARAM> params_;
};

// ---------------------------------------------------------------------------
// Signing and verifying

enum class Entry { oneshot, streamed, pkey };  // EVP_DigestSign, its Update/Final, EVP_PKEY_sign

// What the accepted parameter lists add up to (for each name the first
// occurrence in a list counts, a later list overrides: the provider's rules).
struct Model {
  Bytes context;
  bool deterministic = false, entropy = false, mu = false, prehash = false;
  int encoding = 1;

  void apply(const OSSL_PARAM* list) {
    const OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate_const(list, "context-string")) != nullptr) {
      const void* data = nullptr;
      size_t len = 0;
      OSSL_PARAM_get_octet_string_ptr(p, &data, &len);
      context.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + (data ? len : 0));
    }
    int v = 0;
    if ((p = OSSL_PARAM_locate_const(list, "deterministic")) != nullptr && OSSL_PARAM_get_int(p, &v)) deterministic = v;
    if (OSSL_PARAM_locate_const(list, "test-entropy") != nullptr) entropy = true;
    if ((p = OSSL_PARAM_locate_const(list, "mu")) != nullptr && OSSL_PARAM_get_int(p, &v)) mu = v;
    if ((p = OSSL_PARAM_locate_const(list, "message-encoding")) != nullptr && OSSL_PARAM_get_int(p, &v)) encoding = v;
    if (OSSL_PARAM_locate_const(list, "hash-ml-dsa") != nullptr) prehash = true;
  }
};

// One operation: `lists` in order (the first at init, the rest set before
// any data), then `late`: after the first chunk of a streamed message when
// late_after_data (the signing call's message was not empty), else before
// any data, then `last` (a changed context string) before any data. On a
// refusal the error must be named.
struct Call {
  EVP_PKEY* key;
  Entry entry;
  std::vector<const OSSL_PARAM*> lists;
  const OSSL_PARAM* late;
  bool late_after_data;
  size_t chunk;
  const OSSL_PARAM* last = nullptr;
};

enum class Outcome { ok, refused_params, refused_late, failed };

Outcome run_call(const Call& c, bool sign, std::span<const uint8_t> msg, Bytes& sig) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  Outcome out = Outcome::failed;
  const bool streamed_late = c.entry == Entry::streamed && c.late_after_data && !msg.empty();
  ERR_clear_error();
  if (md == nullptr) fail("EVP_MD_CTX_new");
  bool ok;
  if (c.entry == Entry::pkey) {
    pctx = EVP_PKEY_CTX_new_from_pkey(libctx(), c.key, nullptr);
    ok = pctx != nullptr &&
         (sign ? EVP_PKEY_sign_init_ex(pctx, c.lists[0]) : EVP_PKEY_verify_init_ex(pctx, c.lists[0])) == 1;
  } else {
    ok = (sign ? EVP_DigestSignInit_ex(md, &pctx, nullptr, libctx(), nullptr, c.key, c.lists[0])
               : EVP_DigestVerifyInit_ex(md, &pctx, nullptr, libctx(), nullptr, c.key, c.lists[0])) == 1;
  }
  for (size_t i = 1; ok && i < c.lists.size(); ++i) ok = EVP_PKEY_CTX_set_params(pctx, c.lists[i]) == 1;
  if (ok && !streamed_late) ok = EVP_PKEY_CTX_set_params(pctx, c.late) == 1;
  if (ok && c.last != nullptr) ok = EVP_PKEY_CTX_set_params(pctx, c.last) == 1;
  if (!ok) {
    expect_named_error(sign ? "a signing init or set_params" : "a verifying init or set_params");
    out = Outcome::refused_params;
  } else if (c.entry == Entry::streamed) {
    const size_t chunk = c.chunk == 0 ? 1 : c.chunk;
    ok = true;
    for (size_t at = 0; ok && at < msg.size(); at += chunk) {
      const auto piece = msg.subspan(at, std::min(chunk, msg.size() - at));
      ok = (sign ? EVP_DigestSignUpdate(md, piece.data(), piece.size())
                 : EVP_DigestVerifyUpdate(md, piece.data(), piece.size())) == 1;
      if (!ok || at != 0 || !streamed_late) continue;
      if (EVP_PKEY_CTX_set_params(pctx, c.late) != 1) {
        expect_named_error("set_params after message data");
        out = Outcome::refused_late;
        break;
      }
      for (const char* name : kShaping)
        if (OSSL_PARAM_locate_const(c.late, name) != nullptr) fail("a parameter shaping M' accepted after data");
    }
    if (out == Outcome::failed && ok) {
      if (sign) {
        size_t len = 0;
        ok = EVP_DigestSignFinal(md, nullptr, &len) == 1;
        sig.resize(ok ? len : 0);
        ok = ok && EVP_DigestSignFinal(md, sig.data(), &len) == 1;
        sig.resize(ok ? len : 0);
      } else {
        ok = EVP_DigestVerifyFinal(md, sig.data(), sig.size()) == 1;
      }
    }
    if (out == Outcome::failed) out = ok ? Outcome::ok : Outcome::failed;
  } else {
    size_t len = 0;
    if (sign) {
      ok = (c.entry == Entry::pkey ? EVP_PKEY_sign(pctx, nullptr, &len, msg.data(), msg.size())
                                   : EVP_DigestSign(md, nullptr, &len, msg.data(), msg.size())) == 1;
      sig.resize(ok ? len : 0);
      ok = ok && (c.entry == Entry::pkey ? EVP_PKEY_sign(pctx, sig.data(), &len, msg.data(), msg.size())
                                         : EVP_DigestSign(md, sig.data(), &len, msg.data(), msg.size())) == 1;
      sig.resize(ok ? len : 0);
    } else {
      ok = (c.entry == Entry::pkey ? EVP_PKEY_verify(pctx, sig.data(), sig.size(), msg.data(), msg.size())
                                   : EVP_DigestVerify(md, sig.data(), sig.size(), msg.data(), msg.size())) == 1;
    }
    out = ok ? Outcome::ok : Outcome::failed;
  }
  if (out == Outcome::failed) expect_named_error(sign ? "signing" : "a verification that did not verify");
  if (c.entry == Entry::pkey) EVP_PKEY_CTX_free(pctx);
  EVP_MD_CTX_free(md);
  return out;
}

bool verifies(const Call& c, std::span<const uint8_t> msg, const Bytes& sig) {
  Bytes s = sig;
  const Outcome o = run_call(c, false, msg, s);
  if (o == Outcome::refused_params || o == Outcome::refused_late)
    fail("verification refused the parameters signing accepted");
  return o == Outcome::ok;
}

Bytes flipped(Bytes b, size_t pos, uint8_t x) {
  if (b.empty()) return {x};
  b[pos % b.size()] ^= (x == 0 ? 1 : x);
  return b;
}

// Input: entry (mod 3), parameter lists A (at init), B (set), late, the
// streaming chunk size, a message (16-bit length mod 1025, then its bytes),
// then positions (16-bit) and XOR bytes for the mutations of the message,
// signature and context.
void run_sign(Input& in, size_t set) {
  Call c{fixed(set).full, static_cast<Entry>(in.byte() % 3), {}, nullptr, false, 0};
  const ParamList a(in, set), b(in, set), late(in, set);
  c.lists = {a.get(), b.get()};
  c.late = late.get();
  c.chunk = in.byte();
  const Bytes msg = in.bytes(in.u16() % 1025);
  c.late_after_data = c.entry == Entry::streamed && !msg.empty();
  const size_t msg_pos = in.u16(), sig_pos = in.u16(), ctx_pos = in.u16();
  const uint8_t msg_x = in.byte(), sig_x = in.byte(), ctx_x = in.byte();

  Bytes sig;
  if (run_call(c, true, msg, sig) != Outcome::ok) return;
  Model m;
  m.apply(a.get());
  m.apply(b.get());
  m.apply(late.get());

  if (!verifies(c, msg, sig)) fail("a signature does not verify with the parameters it was made with");
  if (verifies(c, flipped(msg, msg_pos, msg_x), sig)) fail("verified with a changed message");
  if (verifies(c, msg, flipped(sig, sig_pos, sig_x))) fail("verified a changed signature");
  // The context is part of M' unless the input is mu or M' itself; round 3 has none.
  if (is_round3(set) || (!m.mu && m.encoding == 1)) {
    const Bytes ctx = flipped(m.context, ctx_pos, ctx_x);
    OSSL_PARAM other[] = {OSSL_PARAM_octet_string("context-string", const_cast<uint8_t*>(ctx.data()), ctx.size()),
                          OSSL_PARAM_END};
    Call changed = c;
    changed.last = other;
    if (ctx.size() <= 255 && verifies(changed, msg, sig)) fail("verified with a changed context string");
  }
  // The streamed verification of a one-shot signature, and the other way round.
  if (c.entry != Entry::pkey) {
    Call other = c;
    other.entry = c.entry == Entry::oneshot ? Entry::streamed : Entry::oneshot;
    if (!verifies(other, msg, sig)) fail("streamed and one-shot verification disagree");
  }

  Bytes again;
  if (run_call(c, true, msg, again) != Outcome::ok) fail("the same signing failed the second time");
  if (m.deterministic || m.entropy) {
    if (again != sig) fail("deterministic signing gave other bytes the second time");
    // EVP_PKEY_sign takes the digest, not the message, for HashML-DSA.
    if (c.entry != Entry::pkey || !m.prehash) {
      for (Entry e : {Entry::oneshot, Entry::streamed, Entry::pkey}) {
        if (e == c.entry || (e == Entry::pkey && m.prehash)) continue;
        Call other = c;
        other.entry = e;
        Bytes s;
        if (run_call(other, true, msg, s) != Outcome::ok || s != sig)
          fail("deterministic signing differs between entry points (streamed, one-shot, EVP_PKEY_sign)");
      }
    }
  } else if (again == sig) {
    fail("hedged signing repeated its bytes");
  }
}

// ---------------------------------------------------------------------------
// Keys

// A key that signs what it verifies, and survives export / import.
void check_key(EVP_PKEY* pkey, bool has_private) {
  if (has_private && !plain_verify(pkey, plain_sign(pkey))) fail("a key does not verify its own signature");
  OSSL_PARAM* params = nullptr;
  const int selection = has_private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY;
  if (EVP_PKEY_todata(pkey, selection, &params) != 1) fail("export");
  EVP_PKEY* copy = import(EVP_PKEY_get0_type_name(pkey), selection, params);
  if (copy == nullptr || EVP_PKEY_eq(pkey, copy) != 1) fail("export / import does not give the same key");
  EVP_PKEY_free(copy);
  OSSL_PARAM_free(params);
}

// Input: one parameter list for EVP_PKEY_CTX_set_params after keygen_init.
void run_keygen(Input& in, size_t set) {
  const ParamList p(in, set);
  EVP_PKEY* keys[2] = {nullptr, nullptr};
  const bool seeded = p.has("seed");
  for (EVP_PKEY*& key : keys) {
    ERR_clear_error();
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx(), kSets[set], nullptr);
    if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1) fail("keygen_init");
    if (EVP_PKEY_CTX_set_params(ctx, p.get()) != 1) {
      expect_named_error("keygen set_params");
    } else if (EVP_PKEY_keygen(ctx, &key) != 1) {
      expect_named_error("keygen");
    }
    EVP_PKEY_CTX_free(ctx);
    if (key == nullptr || !seeded) break;  // a random key is made once
  }
  if (keys[0] != nullptr) check_key(keys[0], true);
  if (seeded && keys[0] != nullptr && (keys[1] == nullptr || EVP_PKEY_eq(keys[0], keys[1]) != 1))
    fail("keygen from the same seed gave another key");
  EVP_PKEY_free(keys[0]);
  EVP_PKEY_free(keys[1]);
}

// Input: selection (mod 6), one parameter list for EVP_PKEY_fromdata.
void run_import(Input& in, size_t set) {
  constexpr int kSelections[] = {EVP_PKEY_KEYPAIR, EVP_PKEY_PUBLIC_KEY, OSSL_KEYMGMT_SELECT_PRIVATE_KEY,
                                 EVP_PKEY_KEY_PARAMETERS, 0, OSSL_KEYMGMT_SELECT_ALL};
  const int selection = kSelections[in.byte() % 6];
  const ParamList p(in, set);
  ERR_clear_error();
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx(), kSets[set], nullptr);
  EVP_PKEY* pkey = nullptr;
  if (ctx == nullptr || EVP_PKEY_fromdata_init(ctx) != 1) fail("fromdata_init");
  if (EVP_PKEY_fromdata(ctx, &pkey, selection, const_cast<OSSL_PARAM*>(p.get())) != 1)
    expect_named_error("import (EVP_PKEY_fromdata)");
  EVP_PKEY_CTX_free(ctx);
  size_t priv_len = 0;
  if (pkey != nullptr) check_key(pkey, EVP_PKEY_get_octet_string_param(pkey, "priv", nullptr, 0, &priv_len) == 1);
  EVP_PKEY_free(pkey);
}

// Input: the key (bit 0: public only), output (mod 3: DER, PEM, text),
// structure (mod 4: SPKI, PKI, EPKI, any), selection (mod 3: key pair,
// public, private), the encoder's parameter list, a passphrase (length mod
// 16, bytes), the decoder's parameter list.
void run_encode(Input& in, size_t set) {
  EVP_PKEY* key = (in.byte() & 1) ? fixed(set).pub : fixed(set).full;
  const char* const outputs[] = {"DER", "PEM", "TEXT"};
  const char* const structures[] = {"SubjectPublicKeyInfo", "PrivateKeyInfo", "EncryptedPrivateKeyInfo", nullptr};
  const int selections[] = {EVP_PKEY_KEYPAIR, EVP_PKEY_PUBLIC_KEY, OSSL_KEYMGMT_SELECT_PRIVATE_KEY};
  const char* output = outputs[in.byte() % 3];
  const char* structure = structures[in.byte() % 4];
  const int selection = selections[in.byte() % 3];
  const ParamList enc_params(in, set);
  Bytes pass = in.bytes(in.byte() % 16);
  pass.reserve(1);  // never NULL data: OpenSSL refuses a NULL passphrase, even an empty one
  const ParamList dec_params(in, set);

  // A selection the structure cannot carry (a private key as SPKI, a public
  // one as PKCS#8), or text in any structure, fails in OpenSSL's encoder
  // chain before any encoder runs, with nothing on the queue: for its own key
  // types (EC, Ed25519, 3.5's ML-DSA) too. Not the provider's to name.
  if (std::strcmp(output, "TEXT") == 0) structure = nullptr;
  const bool private_structure = structure != nullptr && std::strcmp(structure, "SubjectPublicKeyInfo") != 0;
  if (structure != nullptr && ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0) != private_structure) return;
  ERR_clear_error();
  OSSL_ENCODER_CTX* ectx = OSSL_ENCODER_CTX_new_for_pkey(key, selection, output, structure, nullptr);
  if (ectx == nullptr || OSSL_ENCODER_CTX_get_num_encoders(ectx) == 0) {  // nothing writes that
    OSSL_ENCODER_CTX_free(ectx);
    ERR_clear_error();
    return;
  }
  unsigned char* data = nullptr;
  size_t len = 0;
  bool ok = OSSL_ENCODER_CTX_set_params(ectx, enc_params.get()) == 1;
  if (!ok) expect_named_error("encoder set_params");
  if (ok && OSSL_ENCODER_CTX_set_passphrase(ectx, pass.data(), pass.size()) != 1) fail("set_passphrase");
  if (ok && OSSL_ENCODER_to_data(ectx, &data, &len) != 1) {
    expect_named_error("encoding");
    ok = false;
  }
  OSSL_ENCODER_CTX_free(ectx);
  if (ok && std::strcmp(output, "TEXT") != 0) {
    EVP_PKEY* back = nullptr;
    OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(&back, output, nullptr, EVP_PKEY_get0_type_name(key), 0,
                                                           libctx(), nullptr);
    if (dctx == nullptr) fail("decoder context");
    OSSL_DECODER_CTX_set_params(dctx, dec_params.get());  // the decoders take none; OpenSSL's own may refuse
    OSSL_DECODER_CTX_set_passphrase(dctx, pass.data(), pass.size());
    const unsigned char* p = data;
    size_t left = len;
    OSSL_DECODER_from_data(dctx, &p, &left);
    OSSL_DECODER_CTX_free(dctx);
    if (back == nullptr || EVP_PKEY_eq(key, back) != 1) fail("an encoding does not decode to the same key");
    EVP_PKEY_free(back);
  }
  OPENSSL_clear_free(data, len);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const uint8_t op = in.byte();
  const size_t set = in.byte() % kSetCount;
  switch (op % 4) {
    case 0: run_sign(in, set); break;
    case 1: run_keygen(in, set); break;
    case 2: run_import(in, set); break;
    default: run_encode(in, set); break;
  }
  ERR_clear_error();
  return 0;
}
