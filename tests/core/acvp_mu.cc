// acvp_mu.cc - see acvp_mu.h.
#include "tests/core/acvp_mu.h"

#include "tests/core/reference_hash.h"

namespace mldsa::test {

std::vector<uint8_t> acvp_record_mu(std::span<const uint8_t> tr, const AcvpRecord& r, std::string* why) {
  MuBuilder b;
  if (r.text("signatureInterface") == "internal") {
    if (r.flag("externalMu")) return r.bytes("mu");
    b.init_internal(tr);
    b.update(r.bytes("message"));
  } else if (r.text("preHash") == "pure") {
    if (b.init_pure(tr, r.bytes("context")) != Status::ok) return *why = "init_pure refuses the context", std::vector<uint8_t>{};
    b.update(r.bytes("message"));
  } else {
    HashAlg h;
    if (!hash_from_name(r.text("hashAlg"), h)) return *why = "unknown hashAlg " + r.text("hashAlg"), std::vector<uint8_t>{};
    const std::vector<uint8_t> digest = openssl_digest(h, r.bytes("message"));
    if (digest.empty()) return *why = std::string("OpenSSL cannot compute ") + openssl_md_name(h), std::vector<uint8_t>{};
    if (b.init_prehash(tr, r.bytes("context"), h, digest) != Status::ok)
      return *why = "init_prehash refuses the record", std::vector<uint8_t>{};
  }
  std::vector<uint8_t> mu(MU_BYTES);
  b.final(mu.data());
  return mu;
}

}  // namespace mldsa::test
