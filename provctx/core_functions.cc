// core_functions.cc - one scan of the core's dispatch table (core_functions.h).
#include "provctx/core_functions.h"

namespace mldsa::prov {

CoreFunctions core_functions(const OSSL_DISPATCH* in) {
  CoreFunctions f;
  for (; in != nullptr && in->function_id != 0; ++in) {
    switch (in->function_id) {
      case OSSL_FUNC_CORE_GET_PARAMS: f.get_params = OSSL_FUNC_core_get_params(in); break;
      case OSSL_FUNC_CORE_OBJ_CREATE: f.obj_create = OSSL_FUNC_core_obj_create(in); break;
      case OSSL_FUNC_CORE_OBJ_ADD_SIGID: f.obj_add_sigid = OSSL_FUNC_core_obj_add_sigid(in); break;
      case OSSL_FUNC_CORE_NEW_ERROR: f.new_error = OSSL_FUNC_core_new_error(in); break;
      case OSSL_FUNC_CORE_SET_ERROR_DEBUG: f.set_error_debug = OSSL_FUNC_core_set_error_debug(in); break;
      case OSSL_FUNC_CORE_VSET_ERROR: f.vset_error = OSSL_FUNC_core_vset_error(in); break;
      default: break;
    }
  }
  return f;
}

}  // namespace mldsa::prov
