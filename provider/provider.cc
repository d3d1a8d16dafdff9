// provider.cc - OSSL_provider_init: the provider context, its parameters,
// the algorithm tables and the OIDs it registers with the core.
#include "keymgmt/keymgmt.h"
#include "provider/capabilities.h"
#include "provctx/errors.h"
#include "provctx/provctx.h"
#include "provider/router.h"
#include "provider/signature.h"
#ifdef MLDSA_HAVE_ENCODERS
#include "encoders/encoders.h"
#endif

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>

#include <memory>
#include <new>
#include <string>
#include <string_view>

#ifndef MLDSA_ACCEL_VERSION
#define MLDSA_ACCEL_VERSION "0.0.0"
#endif

namespace mldsa::prov {

namespace {

constexpr const char* kName = "mldsa-accel";
constexpr const char* kBuildInfo = "mldsa-accel " MLDSA_ACCEL_VERSION " (FIPS 204), built with " OPENSSL_VERSION_TEXT;

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, nullptr, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, nullptr, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, nullptr, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, nullptr),  // int, as the default provider declares it
    // Routing (provider/router.h).
    OSSL_PARAM_utf8_ptr(PARAM_CPU_BACKEND, nullptr, 0),
    OSSL_PARAM_utf8_ptr(PARAM_CPU_TUNING, nullptr, 0),
    OSSL_PARAM_utf8_ptr(PARAM_GPU_DEVICES, nullptr, 0),
    OSSL_PARAM_uint64(PARAM_REQUESTS_CPU, nullptr),
    OSSL_PARAM_uint64(PARAM_REQUESTS_QUEUED, nullptr),
    OSSL_PARAM_uint64(PARAM_QUEUE_FULL, nullptr),
    OSSL_PARAM_uint64(PARAM_BATCHES, nullptr),
    OSSL_PARAM_utf8_string(PARAM_MEAN_BATCH, nullptr, 0),
    OSSL_PARAM_uint64(PARAM_FALLBACKS, nullptr),
    OSSL_PARAM_utf8_ptr(PARAM_GPU_POLICY, nullptr, 0),
    OSSL_PARAM_uint64(PARAM_GPU_MAX_BATCH, nullptr),
    OSSL_PARAM_utf8_string(PARAM_GPU_MODEL, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* prov_gettable_params(void* /*provctx*/) { return kGettable; }

int prov_get_params(void* provctx, OSSL_PARAM params[]) {
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != nullptr && !OSSL_PARAM_set_utf8_ptr(p, kName))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != nullptr &&
      !OSSL_PARAM_set_utf8_ptr(p, MLDSA_ACCEL_VERSION))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != nullptr &&
      !OSSL_PARAM_set_utf8_ptr(p, kBuildInfo))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != nullptr && !OSSL_PARAM_set_int(p, 1)) return 0;
  Router* router = provctx ? static_cast<ProvCtx*>(provctx)->router : nullptr;
  if (router != nullptr && !router->get_params(params)) return 0;
  return 1;
}

const OSSL_ALGORITHM* prov_query_operation(void* /*provctx*/, int operation_id, int* no_cache) {
  *no_cache = 0;
  switch (operation_id) {
    case OSSL_OP_KEYMGMT: return mldsa_keymgmt_algorithms;
    case OSSL_OP_SIGNATURE: return mldsa_signature_algorithms;
#ifdef MLDSA_HAVE_ENCODERS
    case OSSL_OP_ENCODER: return mldsa_encoder_algorithms;
    case OSSL_OP_DECODER: return mldsa_decoder_algorithms;
#endif
    default: return nullptr;
  }
}

const OSSL_ITEM* prov_get_reason_strings(void* /*provctx*/) { return reason_strings(); }

void prov_teardown(void* provctx) {
  ProvCtx* ctx = static_cast<ProvCtx*>(provctx);
  if (ctx == nullptr) return;
  // Queued requests complete (on the CPU) before anything they use goes.
  delete ctx->router;
  OSSL_LIB_CTX_free(ctx->libctx);
  delete ctx;
}

#define MLDSA_FN(id, f) {id, reinterpret_cast<void (*)(void)>(f)}

const OSSL_DISPATCH kProviderFunctions[] = {
    MLDSA_FN(OSSL_FUNC_PROVIDER_TEARDOWN, prov_teardown),
    MLDSA_FN(OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, prov_gettable_params),
    MLDSA_FN(OSSL_FUNC_PROVIDER_GET_PARAMS, prov_get_params),
    MLDSA_FN(OSSL_FUNC_PROVIDER_QUERY_OPERATION, prov_query_operation),
    MLDSA_FN(OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, prov_get_reason_strings),
    MLDSA_FN(OSSL_FUNC_PROVIDER_GET_CAPABILITIES, get_capabilities),
    {0, nullptr},
};

struct CoreFunctions {
  OSSL_FUNC_core_get_params_fn* get_params = nullptr;
  OSSL_FUNC_core_obj_create_fn* obj_create = nullptr;
  OSSL_FUNC_core_obj_add_sigid_fn* obj_add_sigid = nullptr;
};

CoreFunctions core_functions(const OSSL_DISPATCH* in) {
  CoreFunctions f;
  for (; in != nullptr && in->function_id != 0; ++in) {
    switch (in->function_id) {
      case OSSL_FUNC_CORE_GET_PARAMS: f.get_params = OSSL_FUNC_core_get_params(in); break;
      case OSSL_FUNC_CORE_OBJ_CREATE: f.obj_create = OSSL_FUNC_core_obj_create(in); break;
      case OSSL_FUNC_CORE_OBJ_ADD_SIGID: f.obj_add_sigid = OSSL_FUNC_core_obj_add_sigid(in); break;
      default: break;
    }
  }
  return f;
}

// A configuration file's provider section hands every line of it to the
// module as a core parameter, "activate" among them; OSSL_PROVIDER_load has none.
bool loaded_from_config(const OSSL_CORE_HANDLE* handle, const CoreFunctions& f) {
  char* activate = nullptr;
  OSSL_PARAM params[] = {
      OSSL_PARAM_utf8_ptr("activate", &activate, 0),
      OSSL_PARAM_END,
  };
  return f.get_params != nullptr && f.get_params(handle, params) && activate != nullptr;
}

// Refuses the load: the reason, raised through the instance, is made
// printable after the unload and said on stderr for a configuration file.
int refuse(ProvCtx* ctx, int reason, const char* detail) {
  report_refused_load(*ctx, reason, detail);
  prov_teardown(ctx);
  return 0;
}
#define MLDSA_REFUSE(ctx, reason, detail) (MLDSA_RAISE_DETAIL(ctx, reason, detail), refuse(ctx, reason, detail))

std::string core_version(const OSSL_CORE_HANDLE* handle, const CoreFunctions& f) {
  char* version = nullptr;
  OSSL_PARAM params[] = {
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_CORE_VERSION, &version, 0),
      OSSL_PARAM_END,
  };
  if (f.get_params == nullptr || !f.get_params(handle, params) || version == nullptr) return {};
  return version;
}

// The ML-DSA and HashML-DSA OIDs, and their signature -> key type mapping,
// which a 3.0 core does not know: X.509 verification looks them up. A core
// that already has them (3.5+) reports success without change.
bool register_objects(const OSSL_CORE_HANDLE* handle, const CoreFunctions& f) {
  if (f.obj_create == nullptr || f.obj_add_sigid == nullptr) return false;
  for (const SignatureOid& o : signature_oids()) {
    if (!f.obj_create(handle, o.oid, o.sn, o.ln)) return false;
  }
  for (const SignatureOid& o : signature_oids()) {
    if (!f.obj_add_sigid(handle, o.sn, nullptr, o.key_sn)) return false;
  }
  return true;
}

}  // namespace

}  // namespace mldsa::prov

extern "C" __attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE* handle,
                                                                         const OSSL_DISPATCH* in,
                                                                         const OSSL_DISPATCH** out,
                                                                         void** provctx) {
  using namespace mldsa::prov;
  const CoreFunctions core = core_functions(in);
  ProvCtx* ctx = new (std::nothrow) ProvCtx;
  if (ctx == nullptr) return 0;
  ctx->handle = handle;
  ctx->errors = error_sink(handle, in);
  ctx->from_config = loaded_from_config(handle, core);
  // Hashing and randomness go through the application's providers.
  ctx->libctx = OSSL_LIB_CTX_new_child(handle, in);
  if (ctx->libctx == nullptr) return MLDSA_REFUSE(ctx, R_INTERNAL_ERROR, "no child library context");
  ctx->config = read_config(handle, core.get_params);
  ctx->core_version = core_version(handle, core);
  {
    // Routing: a bad setting, or gpu = on without a GPU, refuses the load.
    RouterConfig rc;
    std::string why;
    if (!read_router_config(handle, core.get_params, rc, &why)) return MLDSA_REFUSE(ctx, R_BAD_CONFIG, why.c_str());
    bool no_gpu = false;
    std::unique_ptr<Router> router = Router::create(rc, &why, &no_gpu);
    if (router == nullptr) {
      // "gpu = on, but none: no CUDA device": the reason says the first half.
      constexpr std::string_view kGpuOn = "gpu = on, but ";
      if (no_gpu && why.starts_with(kGpuOn)) why.erase(0, kGpuOn.size());
      return MLDSA_REFUSE(ctx, no_gpu ? R_GPU_UNAVAILABLE : R_BAD_CONFIG, why.c_str());
    }
    ctx->router = router.release();
  }
  // Without these certificates signed with ML-DSA would not verify: refuse
  // to load rather than half work.
  if (!register_objects(handle, core)) return MLDSA_REFUSE(ctx, R_INTERNAL_ERROR, "cannot register the ML-DSA OIDs");
  *out = kProviderFunctions;
  *provctx = ctx;
  return 1;
}
