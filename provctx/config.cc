// config.cc - the provider's settings: openssl.cnf keys through the core,
// MLDSA_ACCEL_* environment variables on top.
#include "provctx/provctx.h"

#include <openssl/params.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace mldsa::prov {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

void apply_bool(const char* value, bool& setting) {
  bool b;
  if (value != nullptr && parse_bool(value, b)) setting = b;
}

}  // namespace

bool parse_bool(std::string_view text, bool& out) {
  const std::string t = lower(text);
  if (t == "1" || t == "yes" || t == "true" || t == "on") {
    out = true;
    return true;
  }
  if (t == "0" || t == "no" || t == "false" || t == "off") {
    out = false;
    return true;
  }
  return false;
}

Config read_config(const OSSL_CORE_HANDLE* handle, OSSL_FUNC_core_get_params_fn* core_get_params) {
  Config cfg;
  // The core answers with pointers to its own copies of the strings.
  char* retain = nullptr;
  char* prefer = nullptr;
  char* input = nullptr;
  char* output = nullptr;
  char* v2 = nullptr;
  char* tls_dilithium = nullptr;
  OSSL_PARAM params[] = {
      OSSL_PARAM_utf8_ptr(CONFIG_RETAIN_SEED, &retain, 0),
      OSSL_PARAM_utf8_ptr(CONFIG_PREFER_SEED, &prefer, 0),
      OSSL_PARAM_utf8_ptr(CONFIG_INPUT_FORMATS, &input, 0),
      OSSL_PARAM_utf8_ptr(CONFIG_OUTPUT_FORMATS, &output, 0),
      OSSL_PARAM_utf8_ptr(CONFIG_PKCS8_PUBLIC_KEY, &v2, 0),
      OSSL_PARAM_utf8_ptr(CONFIG_TLS_DILITHIUM, &tls_dilithium, 0),
      OSSL_PARAM_END,
  };
  if (core_get_params != nullptr && core_get_params(handle, params)) {
    apply_bool(retain, cfg.retain_seed);
    apply_bool(prefer, cfg.prefer_seed);
    if (input != nullptr) cfg.input_formats = input;
    if (output != nullptr) cfg.output_formats = output;
    apply_bool(v2, cfg.pkcs8_public_key);
    apply_bool(tls_dilithium, cfg.tls_dilithium);
  }
  apply_bool(std::getenv("MLDSA_ACCEL_RETAIN_SEED"), cfg.retain_seed);
  apply_bool(std::getenv("MLDSA_ACCEL_PREFER_SEED"), cfg.prefer_seed);
  if (const char* v = std::getenv("MLDSA_ACCEL_INPUT_FORMATS")) cfg.input_formats = v;
  if (const char* v = std::getenv("MLDSA_ACCEL_OUTPUT_FORMATS")) cfg.output_formats = v;
  apply_bool(std::getenv("MLDSA_ACCEL_PKCS8_PUBLIC_KEY"), cfg.pkcs8_public_key);
  apply_bool(std::getenv("MLDSA_ACCEL_TLS_DILITHIUM"), cfg.tls_dilithium);
  return cfg;
}

}  // namespace mldsa::prov
