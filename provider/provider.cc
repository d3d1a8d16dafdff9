// provider.cc - OSSL_provider_init: the provider context, its parameters,
// the algorithm tables and the OIDs it registers with the core.
#include "keymgmt/composite_key.h"
#include "keymgmt/falcon_key.h"
#include "keymgmt/keymgmt.h"
#include "provider/capabilities.h"
#include "provctx/dispatch.h"
#include "provctx/errors.h"
#include "provctx/provctx.h"
#include "provider/instance.h"
#include "route/test_hooks.h"
#include "provider/composite_signature.h"
#include "provider/falcon_signature.h"
#include "provider/signature.h"
#ifdef MLDSA_HAVE_ENCODERS
#include "encoders/encoders.h"
#include "encoders/pkcs8_formats.h"
#endif

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#ifndef MLDSA_ACCEL_VERSION
#define MLDSA_ACCEL_VERSION "0.0.0"
#endif

namespace mldsa::prov {

namespace {

constexpr const char* kName = "mldsa-accel";
constexpr const char* kBuildInfo = "mldsa-accel " MLDSA_ACCEL_VERSION " (FIPS 204), built with " OPENSSL_VERSION_TEXT;

// Provider parameters that report where the work goes.
constexpr const char* PARAM_CPU_BACKEND = "cpu-backend";          // utf8: "avx512"
constexpr const char* PARAM_CPU_TUNING = "cpu-tuning";            // utf8: "zen5" or "generic" (its table)
constexpr const char* PARAM_GPU_DEVICES = "gpu-devices";          // utf8: "NVIDIA H200 ..." or "none: <reason>"
constexpr const char* PARAM_REQUESTS_CPU = "requests-cpu";        // uint64: computed at once on the CPU
constexpr const char* PARAM_REQUESTS_QUEUED = "requests-queued";  // uint64: completed through the batch queue
constexpr const char* PARAM_QUEUE_FULL = "requests-queue-full";   // uint64: refused by the queue, ran on the CPU
constexpr const char* PARAM_BATCHES = "batches";                  // uint64: handed to the executor
constexpr const char* PARAM_MEAN_BATCH = "mean-batch-size";       // utf8 "12.50" (or a double, if asked for one)
constexpr const char* PARAM_FALLBACKS = "fallbacks";              // uint64: items recomputed after executor errors
constexpr const char* PARAM_DEVICE_CHECKED = "device-results-checked";  // uint64: device results checked on the CPU
constexpr const char* PARAM_DEVICE_WRONG = "device-wrong-results";      // uint64: of those, wrong (recomputed on the CPU)
constexpr const char* PARAM_DEVICE_REDONE = "device-batches-redone";    // uint64: verify batches redone after a wrong verdict
constexpr const char* PARAM_GPU_OUT_OF_SERVICE = "gpu-out-of-service";  // int: 1 once gpu_fault_limit wrong results were seen
constexpr const char* PARAM_GPU_POLICY = "gpu-policy";            // utf8: "measured" or "always"
constexpr const char* PARAM_GPU_MAX_BATCH = "gpu-max-batch";      // uint64: the batch limit in use (0: no GPU)
constexpr const char* PARAM_GPU_MODEL = "gpu-model";              // utf8 string: what the policy measured, per lane

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, nullptr, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, nullptr, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, nullptr, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, nullptr),  // int, as the default provider declares it
    // Routing (route/router.h).
    OSSL_PARAM_utf8_ptr(PARAM_CPU_BACKEND, nullptr, 0),
    OSSL_PARAM_utf8_ptr(PARAM_CPU_TUNING, nullptr, 0),
    OSSL_PARAM_utf8_ptr(PARAM_GPU_DEVICES, nullptr, 0),
    OSSL_PARAM_uint64(PARAM_REQUESTS_CPU, nullptr),
    OSSL_PARAM_uint64(PARAM_REQUESTS_QUEUED, nullptr),
    OSSL_PARAM_uint64(PARAM_QUEUE_FULL, nullptr),
    OSSL_PARAM_uint64(PARAM_BATCHES, nullptr),
    OSSL_PARAM_utf8_string(PARAM_MEAN_BATCH, nullptr, 0),
    OSSL_PARAM_uint64(PARAM_FALLBACKS, nullptr),
    OSSL_PARAM_uint64(PARAM_DEVICE_CHECKED, nullptr),
    OSSL_PARAM_uint64(PARAM_DEVICE_WRONG, nullptr),
    OSSL_PARAM_uint64(PARAM_DEVICE_REDONE, nullptr),
    OSSL_PARAM_int(PARAM_GPU_OUT_OF_SERVICE, nullptr),
    OSSL_PARAM_utf8_ptr(PARAM_GPU_POLICY, nullptr, 0),
    OSSL_PARAM_uint64(PARAM_GPU_MAX_BATCH, nullptr),
    OSSL_PARAM_utf8_string(PARAM_GPU_MODEL, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* prov_gettable_params(void* /*provctx*/) { return kGettable; }

// The routing parameters: what the router did and what it knows.
bool routing_params(route::Router& router, OSSL_PARAM params[]) {
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, PARAM_CPU_BACKEND)) != nullptr &&
      !OSSL_PARAM_set_utf8_ptr(p, mldsa::backend_name()))
    return false;
  if ((p = OSSL_PARAM_locate(params, PARAM_CPU_TUNING)) != nullptr &&
      !OSSL_PARAM_set_utf8_ptr(p, mldsa::backend_tuning()))
    return false;
  if ((p = OSSL_PARAM_locate(params, PARAM_GPU_DEVICES)) != nullptr &&
      !OSSL_PARAM_set_utf8_ptr(p, router.gpu_devices().c_str()))
    return false;
  if ((p = OSSL_PARAM_locate(params, PARAM_GPU_POLICY)) != nullptr &&
      !OSSL_PARAM_set_utf8_ptr(p, router.gpu_policy() == route::GpuPolicy::always ? "always" : "measured"))
    return false;
  if ((p = OSSL_PARAM_locate(params, PARAM_GPU_MAX_BATCH)) != nullptr && !OSSL_PARAM_set_uint64(p, router.max_batch()))
    return false;
  if ((p = OSSL_PARAM_locate(params, PARAM_GPU_MODEL)) != nullptr) {
    const std::string text = router.policy() != nullptr ? router.policy()->describe() : "none: no GPU in use";
    if (!OSSL_PARAM_set_utf8_string(p, text.c_str())) return false;
  }
  const route::RouterCounters c = router.counters();
  const std::pair<const char*, uint64_t> numbers[] = {
      {PARAM_REQUESTS_CPU, c.cpu}, {PARAM_REQUESTS_QUEUED, c.queued}, {PARAM_QUEUE_FULL, c.queue_full},
      {PARAM_BATCHES, c.batches},  {PARAM_FALLBACKS, c.fallbacks},
      {PARAM_DEVICE_CHECKED, c.checks.signatures_checked + c.checks.verdicts_checked + c.checks.keys_checked},
      {PARAM_DEVICE_WRONG, c.checks.wrong}, {PARAM_DEVICE_REDONE, c.checks.batches_redone},
  };
  for (const auto& [name, value] : numbers) {
    if ((p = OSSL_PARAM_locate(params, name)) != nullptr && !OSSL_PARAM_set_uint64(p, value)) return false;
  }
  if ((p = OSSL_PARAM_locate(params, PARAM_GPU_OUT_OF_SERVICE)) != nullptr &&
      !OSSL_PARAM_set_int(p, c.checks.out_of_service ? 1 : 0))
    return false;
  if ((p = OSSL_PARAM_locate(params, PARAM_MEAN_BATCH)) != nullptr) {
    // Declared as text ("12.50"), which `openssl list -providers -verbose`
    // can print; a caller asking for a double gets one.
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", c.mean_batch);
    if (p->data_type == OSSL_PARAM_REAL ? !OSSL_PARAM_set_double(p, c.mean_batch) : !OSSL_PARAM_set_utf8_string(p, text))
      return false;
  }
  return true;
}

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
  Instance* in = instance_of(provctx);
  if (in != nullptr && in->router != nullptr && !routing_params(*in->router, params)) return 0;
  return 1;
}

// One operation's algorithms: ML-DSA's table, then the composites', then Falcon's.
std::vector<OSSL_ALGORITHM> joined(std::initializer_list<const OSSL_ALGORITHM*> tables) {
  std::vector<OSSL_ALGORITHM> out;
  for (const OSSL_ALGORITHM* t : tables)
    for (; t->algorithm_names != nullptr; ++t) out.push_back(*t);
  out.push_back({nullptr, nullptr, nullptr, nullptr});
  return out;
}

const OSSL_ALGORITHM* prov_query_operation(void* /*provctx*/, int operation_id, int* no_cache) {
  *no_cache = 0;
  static const auto keymgmt =
      joined({mldsa_keymgmt_algorithms, composite_keymgmt_algorithms(), falcon_keymgmt_algorithms()});
  static const auto signature =
      joined({mldsa_signature_algorithms, composite_signature_algorithms(), falcon_signature_algorithms()});
#ifdef MLDSA_HAVE_ENCODERS
  static const auto encoder =
      joined({mldsa_encoder_algorithms, composite_encoder_algorithms(), falcon_encoder_algorithms()});
  static const auto decoder =
      joined({mldsa_decoder_algorithms, composite_decoder_algorithms(), falcon_decoder_algorithms()});
#endif
  switch (operation_id) {
    case OSSL_OP_KEYMGMT: return keymgmt.data();
    case OSSL_OP_SIGNATURE: return signature.data();
#ifdef MLDSA_HAVE_ENCODERS
    case OSSL_OP_ENCODER: return encoder.data();
    case OSSL_OP_DECODER: return decoder.data();
#endif
    default: return nullptr;
  }
}

const OSSL_ITEM* prov_get_reason_strings(void* /*provctx*/) { return reason_strings(); }

void prov_teardown(void* provctx) {
  Instance* in = instance_of(provctx);
  if (in == nullptr) return;
  // Queued requests complete (on the CPU) before anything they use goes.
  in->router.reset();
  OSSL_LIB_CTX_free(in->libctx);
  delete in;
}

const OSSL_DISPATCH kProviderFunctions[] = {
    MLDSA_FN(OSSL_FUNC_PROVIDER_TEARDOWN, prov_teardown),
    MLDSA_FN(OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, prov_gettable_params),
    MLDSA_FN(OSSL_FUNC_PROVIDER_GET_PARAMS, prov_get_params),
    MLDSA_FN(OSSL_FUNC_PROVIDER_QUERY_OPERATION, prov_query_operation),
    MLDSA_FN(OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, prov_get_reason_strings),
    MLDSA_FN(OSSL_FUNC_PROVIDER_GET_CAPABILITIES, get_capabilities),
    {0, nullptr},
};

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

// The PKCS#8 format lists name known formats (the encoders' grammar).
bool format_lists_valid(const Settings& s, std::string* why) {
#ifdef MLDSA_HAVE_ENCODERS
  for (const auto& [key, text] : {std::pair{"ml-dsa.input_formats", &s.input_formats},
                                  std::pair{"ml-dsa.output_formats", &s.output_formats}}) {
    P8FormatList list;
    if (!p8_parse_format_list(*text, list)) {
      *why = std::string(key) + ": '" + *text + "' names a format that does not exist";
      return false;
    }
  }
#else
  (void)s;
  (void)why;
#endif
  return true;
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

// The ML-DSA, HashML-DSA, composite and Falcon OIDs, and their signature -> key type mapping,
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
  // The composites: one OID names both the key type and the signature (no separate digest).
  for (const composite::Algorithm& a : composite::algorithms()) {
    if (!f.obj_create(handle, a.oid, a.sn, a.name) || !f.obj_add_sigid(handle, a.sn, nullptr, a.sn)) return false;
  }
  // Falcon (oqs-provider's OIDs): the same, short and long name both the algorithm's name.
  for (const FalconVariant& v : falcon_variants()) {
    if (!f.obj_create(handle, v.oid, v.name, v.name) || !f.obj_add_sigid(handle, v.name, nullptr, v.name)) return false;
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
  Instance* ctx = new (std::nothrow) Instance;
  if (ctx == nullptr) return 0;
  ctx->handle = handle;
  ctx->errors = error_sink(handle, core);
  ctx->from_config = loaded_from_config(handle, core);
  // Hashing and randomness go through the application's providers.
  ctx->libctx = OSSL_LIB_CTX_new_child(handle, in);
  if (ctx->libctx == nullptr) return MLDSA_REFUSE(ctx, R_INTERNAL_ERROR, "no child library context");
  ctx->core_version = core_version(handle, core);
  {
    // A bad value, an unknown key, or gpu = on without a GPU refuses the load.
    std::string why;
    if (!read_settings(handle, core.get_params, mldsa::route::test_hooks_built(), ctx->settings, &why) ||
        !format_lists_valid(ctx->settings, &why))
      return MLDSA_REFUSE(ctx, R_BAD_CONFIG, why.c_str());
    bool no_gpu = false;
    ctx->router = mldsa::route::Router::create(mldsa::route::router_config(ctx->settings), &why, &no_gpu);
    if (ctx->router == nullptr) {
      // "gpu = on, but none: no CUDA device": the reason says the first half.
      constexpr std::string_view kGpuOn = "gpu = on, but ";
      if (no_gpu && why.starts_with(kGpuOn)) why.erase(0, kGpuOn.size());
      return MLDSA_REFUSE(ctx, no_gpu ? R_GPU_UNAVAILABLE : R_BAD_CONFIG, why.c_str());
    }
  }
  // Without these certificates signed with ML-DSA would not verify: refuse
  // to load rather than half work.
  if (!register_objects(handle, core)) return MLDSA_REFUSE(ctx, R_INTERNAL_ERROR, "cannot register the ML-DSA OIDs");
  *out = kProviderFunctions;
  *provctx = static_cast<ProvCtx*>(ctx);
  return 1;
}
