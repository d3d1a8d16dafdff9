// keymgmt_common.h - what the KEYMGMT operations of ML-DSA / Dilithium, composite ML-DSA and
// Falcon share: load()'s taking of a decoded key, the export of key parts as octet strings,
// and the "priv" / "pub" import of the families whose keys are those two octet strings.
#pragma once

#include "provctx/dispatch.h"
#include "provctx/errors.h"
#include "provctx/provctx.h"

#include <openssl/core.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

namespace mldsa::prov {

// OSSL_FUNC_keymgmt_load: takes the key a decoder passed by reference (the reference's octets
// are the K* itself, nulled here: see encoders/encoders.h). A key for which fits(*k) is false
// (another algorithm's) is freed with `reason` raised.
template <class K, class Fits>
K* take_loaded_key(const void* reference, size_t reference_sz, Fits fits, Reason reason, void (*free_key)(K*)) {
  if (reference == nullptr || reference_sz != sizeof(K*)) return nullptr;
  auto** slot = static_cast<K**>(const_cast<void*>(reference));
  K* k = *slot;
  *slot = nullptr;
  if (k != nullptr && !fits(*k)) {
    MLDSA_RAISE(k->provctx, reason);
    free_key(k);
    return nullptr;
  }
  return k;
}

// OSSL_FUNC_keymgmt_export of key parts: each part not empty becomes an octet-string parameter
// (a view: cb must copy what it keeps); none at all raises R_MISSING_KEY and returns 0.
struct KeyPart {
  const char* name;  // OSSL_PKEY_PARAM_PRIV_KEY, ...
  std::span<const uint8_t> bytes;
};
int export_key_parts(const ProvCtx* ctx, std::initializer_list<KeyPart> parts, OSSL_CALLBACK* cb, void* cbarg);

// OSSL_FUNC_keymgmt_import of "priv" (when the selection names the private key) and "pub":
// views into params, empty when absent. False with an error raised when the selection names
// no key part or a parameter is not an octet string.
bool import_priv_pub(ProvCtx* ctx, int selection, const OSSL_PARAM params[], std::span<const uint8_t>& priv,
                     std::span<const uint8_t>& pub);
// Their settable / gettable description for import_types and export_types: "priv", "pub".
const OSSL_PARAM* priv_pub_types(int selection);

}  // namespace mldsa::prov

// The dispatch entries of a key manager of variant V (ML-DSA's, Falcon's,
// composite's): each file defines these functions by these names, V its
// template argument where the variant matters, and its import/export types.
#define MLDSA_KEYMGMT_FUNCTIONS(V, imexport_types) \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_NEW, km_new<V>), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_FREE, km_free), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_DUP, km_dup), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_LOAD, km_load<V>), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME, km_query_operation_name<V>), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_HAS, km_has), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_MATCH, km_match), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_VALIDATE, km_validate), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_IMPORT, km_import), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_IMPORT_TYPES, imexport_types), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_EXPORT, km_export), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_EXPORT_TYPES, imexport_types), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_GET_PARAMS, km_get_params), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, km_gettable_params), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_GEN_INIT, km_gen_init<V>), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, km_gen_set_params), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, km_gen_settable_params), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_GEN, km_gen), \
      MLDSA_FN(OSSL_FUNC_KEYMGMT_GEN_CLEANUP, km_gen_cleanup)
