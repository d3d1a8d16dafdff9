// falcon_codec.cc - ENCODER and DECODER of the round-3 Falcon key types (falcon512,
// falconpadded512, falcon1024, falconpadded1024), in oqs-provider's layouts:
//   SubjectPublicKeyInfo: { OID, parameters absent }, BIT STRING = the encoded public key
//   PrivateKeyInfo v1:    { OID, parameters absent }, privateKey OCTET STRING holding the
//                         DER OCTET STRING of sk || pk
// plus EncryptedPrivateKeyInfo, DER / PEM, and text. The decoders also read the inner OCTET
// STRING of sk alone, and sk || pk or sk without it (older oqs-provider), and a v2
// publicKey [1], which must be the key's. Decoders answer "not mine" (1, no key) for
// another OID or unparseable input, and raise a named reason for bad content under their OID.
#include "encoders/encoders.h"
#include "encoders/falcon_codec.h"
#include "encoders/family_codec.h"
#include "keymgmt/falcon_key.h"
#include "provctx/errors.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <string>
#include <vector>

namespace mldsa::prov {

// The privateKey OCTET STRING content: 04 82 LL LL || sk || pk (what oqs-provider writes).
std::vector<uint8_t> falcon_private_payload(std::span<const uint8_t> sk, std::span<const uint8_t> pk) {
  const size_t n = sk.size() + pk.size();
  std::vector<uint8_t> out(4 + n);
  out[0] = 0x04;
  out[1] = 0x82;
  out[2] = static_cast<uint8_t>(n >> 8);
  out[3] = static_cast<uint8_t>(n);
  std::copy(sk.begin(), sk.end(), out.begin() + 4);
  std::copy(pk.begin(), pk.end(), out.begin() + 4 + static_cast<std::ptrdiff_t>(sk.size()));
  return out;
}

// Splits a privateKey OCTET STRING content into sk and pk (empty when absent): the wrapped
// or bare sk || pk or sk, recognised by exact length and prefix. False when none fits.
bool falcon_private_parts(const falcon::Params& p, std::span<const uint8_t> in, std::span<const uint8_t>& sk,
                          std::span<const uint8_t>& pk) {
  std::span<const uint8_t> body = in;
  for (const size_t n : {p.sk_bytes + p.pk_bytes, p.sk_bytes}) {
    if (in.size() == 4 + n && in[0] == 0x04 && in[1] == 0x82 && in[2] == (n >> 8) && in[3] == (n & 0xff)) {
      body = in.subspan(4);
      break;
    }
  }
  if (body.size() != p.sk_bytes + p.pk_bytes && body.size() != p.sk_bytes) return false;
  sk = body.first(p.sk_bytes);
  pk = body.subspan(p.sk_bytes);
  return true;
}

namespace {

using family_codec::Outcome;

// What the Falcon key types add to family_codec.h.
struct FalconCodec {
  using Alg = FalconVariant;
  using KeyObj = FalconKey;
  static constexpr size_t count = FALCON_VARIANT_COUNT;
  static constexpr Reason wrong_key = R_WRONG_FALCON_KEY;
  static const Alg& alg(size_t i) { return falcon_variants()[i]; }
  static const char* names(const Alg& a) { return a.names; }
  static const char* name(const Alg& a) { return a.name; }
  static const char* oid(const Alg& a) { return a.oid; }
  static bool has_key(const KeyObj& k) { return k.has_public(); }
  static bool has_private(const KeyObj& k) { return k.has_private(); }
  static const Alg* alg_of(const KeyObj& k) { return k.variant; }
  static void free(KeyObj* k) { falcon_key_free(k); }
  static std::span<const uint8_t> public_encoding(const KeyObj& k) { return k.pub; }

  static bool private_encoding(ProvCtx* ctx, const KeyObj& k, std::vector<uint8_t>& out) {
    if (!k.has_private()) {
      MLDSA_RAISE(ctx, R_MISSING_KEY);
      return false;
    }
    out = falcon_private_payload(k.priv, k.pub);
    return true;
  }

  static bool write_text(BIO* out, ProvCtx*, const Alg& v, const KeyObj& k, bool priv) {
    if (BIO_printf(out, "OID: %s\nFalcon (round 3): %s, %s signatures\n", v.oid, v.params().name,
                   v.padded ? "padded" : "compressed") <= 0)
      return false;
    if (priv && !print_hex_block(out, "priv:", k.priv)) return false;
    return print_hex_block(out, "pub:", k.pub);
  }

  // A key held by another provider: its exported "priv" / "pub".
  static KeyObj* import(ProvCtx* ctx, const Alg& v, int selection, const OSSL_PARAM params[]) {
    FalconKey* k = falcon_key_new(ctx, v);
    if (k == nullptr) return nullptr;
    std::span<const uint8_t> priv, pub;
    const OSSL_PARAM* p;
    const void* data = nullptr;
    size_t len = 0;
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 &&
        (p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY)) != nullptr &&
        OSSL_PARAM_get_octet_string_ptr(p, &data, &len) == 1)
      priv = {static_cast<const uint8_t*>(data), len};
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY)) != nullptr &&
        OSSL_PARAM_get_octet_string_ptr(p, &data, &len) == 1)
      pub = {static_cast<const uint8_t*>(data), len};
    if (falcon_key_from_parts(k, priv, pub)) return k;
    falcon_key_free(k);
    return nullptr;
  }

  static Outcome make_key(ProvCtx* ctx, const Alg& v, std::span<const uint8_t> sk, std::span<const uint8_t> pk,
                          KeyObj*& out) {
    FalconKey* k = falcon_key_new(ctx, v);
    if (k == nullptr) return Outcome::error;
    if (!falcon_key_from_parts(k, sk, pk)) {  // raised the precise reason
      falcon_key_free(k);
      return Outcome::error;
    }
    out = k;
    return Outcome::key;
  }

  static Outcome from_public(ProvCtx* ctx, const Alg& v, std::span<const uint8_t> pub, KeyObj*& out) {
    return make_key(ctx, v, {}, pub, out);
  }

  static Outcome from_private(ProvCtx* ctx, const Alg& v, std::span<const uint8_t> priv,
                              std::span<const uint8_t> v2pub, KeyObj*& out) {
    std::span<const uint8_t> sk, pk;
    const falcon::Params& p = v.params();
    if (!falcon_private_parts(p, priv, sk, pk)) {
      const std::string detail = std::string(v.name) + " private key: PKCS#8 privateKey is not " +
                                 std::to_string(p.sk_bytes) + " bytes (sk) or " +
                                 std::to_string(p.sk_bytes + p.pk_bytes) +
                                 " (sk || pk), bare or in an OCTET STRING";
      MLDSA_RAISE_DETAIL(ctx, R_BAD_FALCON_KEY_LENGTH, detail.c_str());
      return Outcome::error;
    }
    // Both the pk after sk and a v2 publicKey: they must agree (each is checked against sk).
    if (!pk.empty() && !v2pub.empty() &&
        (pk.size() != v2pub.size() || CRYPTO_memcmp(pk.data(), v2pub.data(), pk.size()) != 0)) {
      MLDSA_RAISE(ctx, R_PUB_PRIV_MISMATCH);
      return Outcome::error;
    }
    return make_key(ctx, v, sk, pk.empty() ? v2pub : pk, out);
  }
};

}  // namespace

const OSSL_ALGORITHM* falcon_encoder_algorithms() {
  static const auto t = family_codec::algorithms<FalconCodec>(true);
  return t.data();
}

const OSSL_ALGORITHM* falcon_decoder_algorithms() {
  static const auto t = family_codec::algorithms<FalconCodec>(false);
  return t.data();
}

}  // namespace mldsa::prov
