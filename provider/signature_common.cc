// signature_common.cc - the helpers of signature_common.h.
#include "provider/signature_common.h"

#include "provctx/errors.h"

#include <openssl/crypto.h>
#include <openssl/objects.h>
#include <openssl/params.h>

namespace mldsa::prov {

bool algorithm_id_der(const char* oid, std::vector<uint8_t>& out) {
  ASN1_OBJECT* obj = OBJ_txt2obj(oid, 1);
  unsigned char* der = nullptr;
  const int n = obj != nullptr ? i2d_ASN1_OBJECT(obj, &der) : -1;
  ASN1_OBJECT_free(obj);
  if (n <= 0 || n > 127) {
    OPENSSL_free(der);
    return false;
  }
  out.assign({0x30, static_cast<uint8_t>(n)});
  out.insert(out.end(), der, der + n);
  OPENSSL_free(der);
  return true;
}

int get_algorithm_id_param(const ProvCtx* ctx, OSSL_PARAM params[], const char* oid) {
  OSSL_PARAM* p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID);
  if (p == nullptr) return 1;
  std::vector<uint8_t> aid;
  if (!algorithm_id_der(oid, aid)) {
    MLDSA_RAISE(ctx, R_INTERNAL_ERROR);
    return 0;
  }
  return OSSL_PARAM_set_octet_string(p, aid.data(), aid.size());
}

}  // namespace mldsa::prov
