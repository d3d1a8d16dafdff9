// config.cc - the settings of one loaded instance: the provider's openssl.cnf
// section through the core, the MLDSA_ACCEL_* environment on top
// (provctx/settings.h holds the table and the grammars).
#include "provctx/provctx.h"

#include <openssl/conf.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <cstring>
#include <memory>
#include <vector>

namespace mldsa::prov {

namespace {

// What OpenSSL itself reads from a provider's section.
constexpr const char* kOpenSslKeys[] = {"module", "activate", "identity", "soft_load"};

const char* core_string(const OSSL_CORE_HANDLE* handle, OSSL_FUNC_core_get_params_fn* get_params, const char* key) {
  char* value = nullptr;
  OSSL_PARAM params[] = {OSSL_PARAM_utf8_ptr(key, &value, 0), OSSL_PARAM_END};
  if (get_params == nullptr || !get_params(handle, params)) return nullptr;
  return value;
}

// The core answers only for keys it is asked about, so the section's other
// keys come from reading the configuration file the library reads by default
// (OPENSSL_CONF, else OPENSSLDIR/openssl.cnf): this provider's section there,
// by the name it was loaded under. Only a section whose every key the core
// confirms with the same value is ours; anything else (a file an application
// loaded itself, OSSL_PROVIDER_load) leaves nothing to judge.
std::vector<std::string> unknown_keys(const OSSL_CORE_HANDLE* handle, OSSL_FUNC_core_get_params_fn* get_params) {
  std::vector<std::string> unknown;
  const char* name = core_string(handle, get_params, OSSL_PROV_PARAM_CORE_PROV_NAME);
  if (name == nullptr) return unknown;
  std::unique_ptr<char, void (*)(void*)> file(CONF_get1_default_config_file(), [](void* p) { OPENSSL_free(p); });
  std::unique_ptr<CONF, void (*)(CONF*)> conf(NCONF_new(nullptr), NCONF_free);
  if (file == nullptr || conf == nullptr) return unknown;
  // Lookups of absent names raise errors: none of them is the caller's.
  ERR_set_mark();
  long line = 0;
  const char* init = NCONF_load(conf.get(), file.get(), &line) > 0 ? NCONF_get_string(conf.get(), nullptr, "openssl_conf")
                                                                    : nullptr;
  const char* providers = init != nullptr ? NCONF_get_string(conf.get(), init, "providers") : nullptr;
  const char* section = providers != nullptr ? NCONF_get_string(conf.get(), providers, name) : nullptr;
  STACK_OF(CONF_VALUE)* values = section != nullptr ? NCONF_get_section(conf.get(), section) : nullptr;
  ERR_pop_to_mark();
  for (int i = 0; values != nullptr && i < sk_CONF_VALUE_num(values); ++i) {
    const CONF_VALUE* v = sk_CONF_VALUE_value(values, i);
    const char* confirmed = core_string(handle, get_params, v->name);
    if (confirmed == nullptr || std::strcmp(confirmed, v->value) != 0) return {};  // not the section the core read
    bool known = find_setting(v->name) != nullptr && find_setting(v->name)->key != nullptr;
    for (const char* k : kOpenSslKeys) known = known || std::strcmp(v->name, k) == 0;
    if (!known) unknown.emplace_back(v->name);
  }
  return unknown;
}

}  // namespace

bool read_settings(const OSSL_CORE_HANDLE* handle, OSSL_FUNC_core_get_params_fn* get_params, bool test_rows,
                   Settings& out, std::string* why) {
  Settings s;
  const std::span<const Setting> table = settings_table();
  // One request for every key; the core answers with pointers to its copies.
  std::vector<char*> values(table.size(), nullptr);
  std::vector<OSSL_PARAM> params;
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].key != nullptr) params.push_back(OSSL_PARAM_construct_utf8_ptr(table[i].key, &values[i], 0));
  }
  params.push_back(OSSL_PARAM_construct_end());
  if (get_params != nullptr && get_params(handle, params.data())) {
    for (size_t i = 0; i < table.size(); ++i) {
      if (values[i] != nullptr && !apply_setting(s, table[i], values[i], why)) return false;
    }
  }
  if (const std::vector<std::string> unknown = unknown_keys(handle, get_params); !unknown.empty()) {
    *why = "unknown key '" + unknown.front() + "' in the provider's section (docs/CONFIGURE.md lists the keys)";
    return false;
  }
  if (!apply_environment(s, test_rows, why)) return false;
  out = std::move(s);
  return true;
}

}  // namespace mldsa::prov
