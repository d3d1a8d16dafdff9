// composite_codec.cc - ENCODER and DECODER of the 18 composite ML-DSA key types:
// SubjectPublicKeyInfo (the BIT STRING holds mldsaPK || tradPK), PrivateKeyInfo (the OCTET
// STRING holds mldsaSeed || tradSK; draft-19 Section 6), EncryptedPrivateKeyInfo, DER / PEM, and
// text. AlgorithmIdentifier parameters are absent. Decoders answer "not mine" (1, no key) for
// another OID or unparseable input, and raise a named reason for bad content under their OID.
#include "encoders/encoders.h"
#include "encoders/family_codec.h"
#include "keymgmt/composite_key.h"
#include "provctx/errors.h"

#include <openssl/crypto.h>

#include <memory>
#include <utility>
#include <vector>

namespace mldsa::prov {
namespace {

using composite::Algorithm;
using composite::Error;

using family_codec::Outcome;

const char* trad_description(const Algorithm& a) {
  switch (a.trad) {
    case composite::Trad::rsa_pss: return "RSASSA-PSS";
    case composite::Trad::rsa_pkcs15: return "RSASSA-PKCS1-v1_5";
    case composite::Trad::ecdsa: return "ECDSA";
    case composite::Trad::ed25519: return "Ed25519";
    case composite::Trad::ed448: return "Ed448";
  }
  return "";
}

// What the composite key types add to family_codec.h.
struct CompositeCodec {
  using Alg = Algorithm;
  using KeyObj = CompositeKeyData;
  static constexpr size_t count = composite::ALGORITHM_COUNT;
  static constexpr Reason wrong_key = R_WRONG_COMPOSITE;
  static const Alg& alg(size_t i) { return composite::algorithms()[i]; }
  static const char* names(const Alg& a) { return composite_names(a); }
  static const char* name(const Alg& a) { return a.name; }
  static const char* oid(const Alg& a) { return a.oid; }
  static bool has_key(const KeyObj& k) { return k.key != nullptr; }
  static bool has_private(const KeyObj& k) { return k.key->has_private(); }
  static const Alg* alg_of(const KeyObj& k) { return k.alg; }
  static void free(KeyObj* k) { composite_key_free(k); }
  // mldsaPK || tradPK
  static std::span<const uint8_t> public_encoding(const KeyObj& k) { return k.key->public_encoding(); }
  // mldsaSeed || tradSK (draft-19 Section 6)
  static bool private_encoding(ProvCtx* ctx, const KeyObj& k, std::vector<uint8_t>& out) {
    const Error e = k.key->private_encoding(out);
    if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(ctx, e), false;
    return true;
  }

  // The algorithm, then each half: the ML-DSA seed (private) and public key, the traditional
  // key's encodings as the draft writes them.
  static bool write_text(BIO* out, ProvCtx* ctx, const Alg& a, const KeyObj& k, bool priv) {
    const composite::Key& key = *k.key;
    const auto& pub = key.public_encoding();
    const size_t mldsa_pk = mldsa::params(a.mldsa).pk_bytes;
    if (BIO_printf(out, "OID: %s\nML-DSA: %s\ntraditional: %s%s%s\n", a.oid, mldsa::params(a.mldsa).name,
                   trad_description(a), a.curve != nullptr ? " " : "", a.curve != nullptr ? a.curve : "") <= 0)
      return false;
    if (priv) {
      std::vector<uint8_t> sk;
      const Error e = key.private_encoding(sk);
      if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(ctx, e);
      const std::span<const uint8_t> all(sk);
      const bool ok = print_hex_block(out, "ML-DSA seed:", all.first(mldsa::SEED_BYTES)) &&
                      print_hex_block(out, "traditional private key:", all.subspan(mldsa::SEED_BYTES));
      OPENSSL_cleanse(sk.data(), sk.size());
      if (!ok) return false;
    }
    const std::span<const uint8_t> p(pub);
    return print_hex_block(out, "ML-DSA public key:", p.first(mldsa_pk)) &&
           print_hex_block(out, "traditional public key:", p.subspan(mldsa_pk));
  }

  static KeyObj* import(ProvCtx* ctx, const Alg& a, int selection, const OSSL_PARAM params[]) {
    CompositeKeyData* k = composite_key_new(ctx, a);
    if (k == nullptr) return nullptr;
    if (composite_key_import(k, selection, params)) return k;
    composite_key_free(k);
    return nullptr;
  }

  static Outcome keep(ProvCtx* ctx, const Alg& a, Error e, std::unique_ptr<composite::Key>& key, KeyObj*& out) {
    if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(ctx, e), Outcome::error;
    out = composite_key_new(ctx, a);
    if (out == nullptr) return Outcome::error;
    out->key = std::move(key);
    return Outcome::key;
  }

  static Outcome from_public(ProvCtx* ctx, const Alg& a, std::span<const uint8_t> pub, KeyObj*& out) {
    std::unique_ptr<composite::Key> key;
    return keep(ctx, a, composite::Key::from_public(libctx_of(ctx), a, pub, key), key, out);
  }

  // A v2 publicKey [1] must be the derived composite public key.
  static Outcome from_private(ProvCtx* ctx, const Alg& a, std::span<const uint8_t> priv,
                              std::span<const uint8_t> v2pub, KeyObj*& out) {
    std::unique_ptr<composite::Key> key;
    return keep(ctx, a, composite::Key::from_private(libctx_of(ctx), a, priv, v2pub, key), key, out);
  }
};

}  // namespace

const OSSL_ALGORITHM* composite_encoder_algorithms() {
  static const auto t = family_codec::algorithms<CompositeCodec>(true);
  return t.data();
}

const OSSL_ALGORITHM* composite_decoder_algorithms() {
  static const auto t = family_codec::algorithms<CompositeCodec>(false);
  return t.data();
}

}  // namespace mldsa::prov
