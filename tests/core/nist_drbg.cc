// nist_drbg.cc - see nist_drbg.h.
#include "tests/core/nist_drbg.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cstring>
#include <stdexcept>

namespace mldsa::test {

NistKatDrbg::NistKatDrbg(std::span<const uint8_t, 48> entropy) { update(entropy.data()); }

NistKatDrbg::~NistKatDrbg() {
  OPENSSL_cleanse(key_, sizeof key_);
  OPENSSL_cleanse(v_, sizeof v_);
}

void NistKatDrbg::next_block(uint8_t out[16]) {
  for (int i = 15; i >= 0; --i)
    if (++v_[i] != 0) break;
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  int len = 0;
  const bool ok = c != nullptr && EVP_EncryptInit_ex(c, EVP_aes_256_ecb(), nullptr, key_, nullptr) == 1 &&
                  EVP_CIPHER_CTX_set_padding(c, 0) == 1 && EVP_EncryptUpdate(c, out, &len, v_, 16) == 1 &&
                  len == 16;
  EVP_CIPHER_CTX_free(c);
  if (!ok) throw std::runtime_error("AES-256-ECB failed");
}

void NistKatDrbg::update(const uint8_t* provided) {
  uint8_t temp[48];
  for (int b = 0; b < 3; ++b) next_block(temp + 16 * b);
  if (provided != nullptr)
    for (int i = 0; i < 48; ++i) temp[i] ^= provided[i];
  std::memcpy(key_, temp, 32);
  std::memcpy(v_, temp + 32, 16);
  OPENSSL_cleanse(temp, sizeof temp);
}

void NistKatDrbg::generate(uint8_t* out, size_t n) {
  uint8_t block[16];
  while (n > 0) {
    next_block(block);
    const size_t take = n < 16 ? n : 16;
    std::memcpy(out, block, take);
    out += take;
    n -= take;
  }
  update(nullptr);
}

}  // namespace mldsa::test
