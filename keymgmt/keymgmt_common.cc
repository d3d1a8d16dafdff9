// keymgmt_common.cc - the helpers of keymgmt_common.h.
#include "keymgmt/keymgmt_common.h"

#include "provctx/param_read.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <vector>

namespace mldsa::prov {

int export_key_parts(const ProvCtx* ctx, std::initializer_list<KeyPart> parts, OSSL_CALLBACK* cb, void* cbarg) {
  std::vector<OSSL_PARAM> params;
  for (const KeyPart& part : parts)
    if (!part.bytes.empty())
      params.push_back(
          OSSL_PARAM_construct_octet_string(part.name, const_cast<uint8_t*>(part.bytes.data()), part.bytes.size()));
  if (params.empty()) {
    MLDSA_RAISE(ctx, R_MISSING_KEY);
    return 0;
  }
  params.push_back(OSSL_PARAM_construct_end());
  return cb(params.data(), cbarg);
}

bool import_priv_pub(ProvCtx* ctx, int selection, const OSSL_PARAM params[], std::span<const uint8_t>& priv,
                     std::span<const uint8_t>& pub) {
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) {
    MLDSA_RAISE_DETAIL(ctx, R_NOT_SUPPORTED, "import: the selection names no key part");
    return false;
  }
  const OSSL_PARAM* p;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 &&
      (p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY)) != nullptr && !read_octets(ctx, p, priv))
    return false;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY)) != nullptr && !read_octets(ctx, p, pub))
    return false;
  return true;
}

const OSSL_PARAM* priv_pub_types(int selection) {
  static const OSSL_PARAM types[] = {
      OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, nullptr, 0),
      OSSL_PARAM_END,
  };
  return (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0 ? types : nullptr;
}

}  // namespace mldsa::prov
