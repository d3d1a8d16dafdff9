// core_functions.h - the upcalls of the core that the module uses, taken from
// the dispatch table OSSL_provider_init receives, in one scan.
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

namespace mldsa::prov {

struct CoreFunctions {
  OSSL_FUNC_core_get_params_fn* get_params = nullptr;
  OSSL_FUNC_core_obj_create_fn* obj_create = nullptr;
  OSSL_FUNC_core_obj_add_sigid_fn* obj_add_sigid = nullptr;
  // Errors (provctx/errors.h, ErrorSink).
  OSSL_FUNC_core_new_error_fn* new_error = nullptr;
  OSSL_FUNC_core_set_error_debug_fn* set_error_debug = nullptr;
  OSSL_FUNC_core_vset_error_fn* vset_error = nullptr;
};

// Those of `in` (OSSL_provider_init's); an absent one stays nullptr.
CoreFunctions core_functions(const OSSL_DISPATCH* in);

}  // namespace mldsa::prov
