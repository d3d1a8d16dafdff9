#include "tests/core/reference_hash.h"

#include <openssl/evp.h>

namespace mldsa::test {

const char* openssl_md_name(HashAlg h) {
  switch (h) {
    case HashAlg::SHA2_224: return "SHA224";
    case HashAlg::SHA2_256: return "SHA256";
    case HashAlg::SHA2_384: return "SHA384";
    case HashAlg::SHA2_512: return "SHA512";
    case HashAlg::SHA2_512_224: return "SHA512-224";
    case HashAlg::SHA2_512_256: return "SHA512-256";
    case HashAlg::SHA3_224: return "SHA3-224";
    case HashAlg::SHA3_256: return "SHA3-256";
    case HashAlg::SHA3_384: return "SHA3-384";
    case HashAlg::SHA3_512: return "SHA3-512";
    case HashAlg::SHAKE128: return "SHAKE128";
    case HashAlg::SHAKE256: return "SHAKE256";
  }
  return "";
}

static std::vector<uint8_t> digest(const char* name, std::span<const uint8_t> msg, size_t xof_len) {
  std::vector<uint8_t> out;
  EVP_MD* md = EVP_MD_fetch(nullptr, name, nullptr);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = md && ctx && EVP_DigestInit_ex(ctx, md, nullptr) == 1 &&
            EVP_DigestUpdate(ctx, msg.data(), msg.size()) == 1;
  if (ok) {
    out.resize(xof_len ? xof_len : static_cast<size_t>(EVP_MD_get_size(md)));
    unsigned int len = 0;
    ok = xof_len ? EVP_DigestFinalXOF(ctx, out.data(), out.size()) == 1
                 : EVP_DigestFinal_ex(ctx, out.data(), &len) == 1 && len == out.size();
  }
  EVP_MD_CTX_free(ctx);
  EVP_MD_free(md);
  if (!ok) out.clear();
  return out;
}

std::vector<uint8_t> openssl_digest(HashAlg h, std::span<const uint8_t> msg) {
  // FIPS 204 fixes the SHAKE output lengths: 256 bits for SHAKE128, 512 for SHAKE256.
  size_t xof_len = h == HashAlg::SHAKE128 ? 32 : h == HashAlg::SHAKE256 ? 64 : 0;
  return digest(openssl_md_name(h), msg, xof_len);
}

std::vector<uint8_t> openssl_shake256(std::span<const uint8_t> data, size_t out_len) {
  return digest("SHAKE256", data, out_len);
}

std::vector<uint8_t> openssl_shake128(std::span<const uint8_t> data, size_t out_len) {
  return digest("SHAKE128", data, out_len);
}

}  // namespace mldsa::test
