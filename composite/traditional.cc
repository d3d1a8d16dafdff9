// traditional.cc - the traditional half of a composite through OpenSSL's EVP (draft-19 Section 5).
#include "composite/traditional.h"

#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include <cstring>
#include <string>

namespace mldsa::composite {

namespace {

bool is_rsa(const Algorithm& a) { return a.trad == Trad::rsa_pss || a.trad == Trad::rsa_pkcs15; }

// The EVP key type of the traditional half.
const char* key_type(const Algorithm& a) {
  switch (a.trad) {
    case Trad::rsa_pss:
    case Trad::rsa_pkcs15: return "RSA";
    case Trad::ecdsa: return "EC";
    case Trad::ed25519: return "ED25519";
    case Trad::ed448: return "ED448";
  }
  return "";
}

// The key is of the algorithm's type, RSA modulus size and EC curve.
Error check_params(const Algorithm& a, EVP_PKEY* k) {
  if (!EVP_PKEY_is_a(k, key_type(a))) return Error::wrong_trad_params;
  if (is_rsa(a) && EVP_PKEY_get_bits(k) != a.rsa_bits) return Error::wrong_trad_params;
  if (a.trad == Trad::ecdsa) {
    char group[64] = {};
    if (EVP_PKEY_get_utf8_string_param(k, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, nullptr) != 1 ||
        std::strcmp(group, a.curve) != 0)
      return Error::wrong_trad_params;
  }
  return Error::ok;
}

// One DER object of the type-specific structure (RSAPublicKey, RSAPrivateKey, ECPrivateKey), the
// whole input and nothing more.
Error decode_der(OSSL_LIB_CTX* libctx, const Algorithm& a, std::span<const uint8_t> in, int selection,
                 Error bad, EVP_PKEY*& out) {
  EVP_PKEY* k = nullptr;
  OSSL_DECODER_CTX* d =
      OSSL_DECODER_CTX_new_for_pkey(&k, "DER", "type-specific", key_type(a), selection, libctx, nullptr);
  if (d == nullptr || OSSL_DECODER_CTX_get_num_decoders(d) == 0) {
    OSSL_DECODER_CTX_free(d);
    return Error::traditional_unavailable;
  }
  const unsigned char* p = in.data();
  size_t left = in.size();
  const bool ok = !in.empty() && OSSL_DECODER_from_data(d, &p, &left) == 1 && left == 0 && k != nullptr;
  OSSL_DECODER_CTX_free(d);
  if (!ok) {
    EVP_PKEY_free(k);
    return bad;
  }
  out = k;
  return Error::ok;
}

// A key from OSSL_PARAMs (the EC public point with its group).
Error from_params(OSSL_LIB_CTX* libctx, const char* type, int selection, OSSL_PARAM* params, Error bad,
                  EVP_PKEY*& out) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx, type, nullptr);
  if (c == nullptr) return Error::traditional_unavailable;
  EVP_PKEY* k = nullptr;
  const bool ok = EVP_PKEY_fromdata_init(c) == 1 && EVP_PKEY_fromdata(c, &k, selection, params) == 1;
  EVP_PKEY_CTX_free(c);
  if (!ok) return bad;
  out = k;
  return Error::ok;
}

Error encode_der(EVP_PKEY* k, int selection, std::vector<uint8_t>& out) {
  OSSL_ENCODER_CTX* e = OSSL_ENCODER_CTX_new_for_pkey(k, selection, "DER", "type-specific", nullptr);
  unsigned char* der = nullptr;
  size_t len = 0;
  const bool ok = e != nullptr && OSSL_ENCODER_CTX_get_num_encoders(e) > 0 &&
                  OSSL_ENCODER_to_data(e, &der, &len) == 1;
  OSSL_ENCODER_CTX_free(e);
  if (!ok) return Error::traditional_unavailable;
  out.assign(der, der + len);
  OPENSSL_clear_free(der, len);
  return Error::ok;
}

// A digest-sign/verify context set up as the algorithm says (PSS: MGF1 with the same hash, the
// draft's fixed salt length, which verification then requires exactly).
EVP_MD_CTX* start(OSSL_LIB_CTX* libctx, const Algorithm& a, EVP_PKEY* key, bool sign) {
  EVP_MD_CTX* m = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  bool ok = m != nullptr && (sign ? EVP_DigestSignInit_ex(m, &pctx, a.trad_hash, libctx, nullptr, key, nullptr)
                                  : EVP_DigestVerifyInit_ex(m, &pctx, a.trad_hash, libctx, nullptr, key, nullptr)) == 1;
  if (ok && a.trad == Trad::rsa_pss)
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, a.pss_salt) == 1 &&
         EVP_PKEY_CTX_set_rsa_mgf1_md_name(pctx, a.trad_hash, nullptr) == 1;
  else if (ok && a.trad == Trad::rsa_pkcs15)
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1;
  if (!ok) {
    EVP_MD_CTX_free(m);
    return nullptr;
  }
  return m;
}

}  // namespace

Error trad_from_public(OSSL_LIB_CTX* libctx, const Algorithm& a, std::span<const uint8_t> in, EVP_PKEY*& out) {
  EVP_PKEY* k = nullptr;
  Error e = Error::ok;
  ERR_set_mark();
  switch (a.trad) {
    case Trad::rsa_pss:
    case Trad::rsa_pkcs15:
      e = decode_der(libctx, a, in, EVP_PKEY_PUBLIC_KEY, Error::bad_public_key, k);
      break;
    case Trad::ecdsa: {
      // An uncompressed X9.62 point, twice the field size plus the 0x04.
      if (in.size() != 1 + 2 * a.trad_field || in[0] != 0x04) {
        e = Error::bad_public_key;
        break;
      }
      OSSL_PARAM params[] = {
          OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, const_cast<char*>(a.curve), 0),
          OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<uint8_t*>(in.data()), in.size()),
          OSSL_PARAM_construct_end(),
      };
      e = from_params(libctx, "EC", EVP_PKEY_PUBLIC_KEY, params, Error::bad_public_key, k);
      break;
    }
    case Trad::ed25519:
    case Trad::ed448:
      if (in.size() != a.trad_field) {
        e = Error::bad_public_key;
        break;
      }
      k = EVP_PKEY_new_raw_public_key_ex(libctx, key_type(a), nullptr, in.data(), in.size());
      if (k == nullptr) e = Error::bad_public_key;
      break;
  }
  ERR_pop_to_mark();
  if (e == Error::ok && (e = check_params(a, k)) != Error::ok) EVP_PKEY_free(k);
  if (e == Error::ok) out = k;
  return e;
}

Error trad_from_private(OSSL_LIB_CTX* libctx, const Algorithm& a, std::span<const uint8_t> in, EVP_PKEY*& out) {
  EVP_PKEY* k = nullptr;
  Error e = Error::ok;
  ERR_set_mark();
  switch (a.trad) {
    case Trad::rsa_pss:
    case Trad::rsa_pkcs15:
    case Trad::ecdsa:
      // ECPrivateKey without its publicKey: OpenSSL derives the point.
      e = decode_der(libctx, a, in, EVP_PKEY_KEYPAIR, Error::bad_private_key, k);
      break;
    case Trad::ed25519:
    case Trad::ed448:
      if (in.size() != a.trad_field) {
        e = Error::bad_private_key;
        break;
      }
      k = EVP_PKEY_new_raw_private_key_ex(libctx, key_type(a), nullptr, in.data(), in.size());
      if (k == nullptr) e = Error::bad_private_key;
      break;
  }
  ERR_pop_to_mark();
  if (e == Error::ok && (e = check_params(a, k)) != Error::ok) EVP_PKEY_free(k);
  if (e == Error::ok) out = k;
  return e;
}

Error trad_generate(OSSL_LIB_CTX* libctx, const Algorithm& a, EVP_PKEY*& out) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx, key_type(a), nullptr);
  if (c == nullptr) return Error::traditional_unavailable;
  bool ok = EVP_PKEY_keygen_init(c) == 1;
  if (ok && is_rsa(a)) ok = EVP_PKEY_CTX_set_rsa_keygen_bits(c, a.rsa_bits) == 1;
  if (ok && a.trad == Trad::ecdsa) ok = EVP_PKEY_CTX_set_group_name(c, a.curve) == 1;
  EVP_PKEY* k = nullptr;
  ok = ok && EVP_PKEY_generate(c, &k) == 1;
  EVP_PKEY_CTX_free(c);
  if (!ok) return Error::traditional_failed;
  out = k;
  return Error::ok;
}

Error trad_public_encoding(const Algorithm& a, EVP_PKEY* k, std::vector<uint8_t>& out) {
  switch (a.trad) {
    case Trad::rsa_pss:
    case Trad::rsa_pkcs15: return encode_der(k, EVP_PKEY_PUBLIC_KEY, out);
    case Trad::ecdsa: {
      // OpenSSL's default point format is the uncompressed one the draft asks for.
      uint8_t point[1 + 2 * 66];
      size_t len = 0;
      if (EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, sizeof point, &len) != 1 ||
          len != 1 + 2 * a.trad_field || point[0] != 0x04)
        return Error::traditional_failed;
      out.assign(point, point + len);
      return Error::ok;
    }
    case Trad::ed25519:
    case Trad::ed448: {
      size_t len = a.trad_field;
      out.resize(len);
      if (EVP_PKEY_get_raw_public_key(k, out.data(), &len) != 1 || len != a.trad_field)
        return Error::traditional_failed;
      return Error::ok;
    }
  }
  return Error::traditional_failed;
}

Error trad_private_encoding(const Algorithm& a, EVP_PKEY* k, std::vector<uint8_t>& out) {
  switch (a.trad) {
    case Trad::rsa_pss:
    case Trad::rsa_pkcs15: return encode_der(k, EVP_PKEY_KEYPAIR, out);
    case Trad::ecdsa: {
      // The draft's ECPrivateKey has no publicKey field: encode a copy told to leave it out.
      EVP_PKEY* copy = EVP_PKEY_dup(k);
      Error e = Error::traditional_failed;
      if (copy != nullptr && EVP_PKEY_set_int_param(copy, OSSL_PKEY_PARAM_EC_INCLUDE_PUBLIC, 0) == 1)
        e = encode_der(copy, EVP_PKEY_KEYPAIR, out);
      EVP_PKEY_free(copy);
      return e;
    }
    case Trad::ed25519:
    case Trad::ed448: {
      size_t len = a.trad_field;
      out.resize(len);
      if (EVP_PKEY_get_raw_private_key(k, out.data(), &len) != 1 || len != a.trad_field)
        return Error::traditional_failed;
      return Error::ok;
    }
  }
  return Error::traditional_failed;
}

Error trad_sign(OSSL_LIB_CTX* libctx, const Algorithm& a, EVP_PKEY* key, std::span<const uint8_t> msg,
                std::vector<uint8_t>& out) {
  EVP_MD_CTX* m = start(libctx, a, key, true);
  if (m == nullptr) return Error::traditional_unavailable;
  size_t len = 0;
  bool ok = EVP_DigestSign(m, nullptr, &len, msg.data(), msg.size()) == 1;
  const size_t at = out.size();
  if (ok) {
    out.resize(at + len);
    ok = EVP_DigestSign(m, out.data() + at, &len, msg.data(), msg.size()) == 1;
    out.resize(ok ? at + len : at);
  }
  EVP_MD_CTX_free(m);
  return ok ? Error::ok : Error::traditional_failed;
}

Error trad_verify(OSSL_LIB_CTX* libctx, const Algorithm& a, EVP_PKEY* key, std::span<const uint8_t> msg,
                  std::span<const uint8_t> sig) {
  ERR_set_mark();
  EVP_MD_CTX* m = start(libctx, a, key, false);
  const bool started = m != nullptr;
  const bool ok = started && EVP_DigestVerify(m, sig.data(), sig.size(), msg.data(), msg.size()) == 1;
  EVP_MD_CTX_free(m);
  ERR_pop_to_mark();
  if (!started) return Error::traditional_unavailable;
  return ok ? Error::ok : Error::verify_failed;
}

}  // namespace mldsa::composite
