// settings.h - the one table of the module's settings: every openssl.cnf key
// and MLDSA_ACCEL_* environment variable, with its type, default, values and
// meaning, and the typed values parsed from them (Settings). One grammar per
// type; a bad value is an error with the setting's name in it, never ignored.
// No OpenSSL here: provctx/config.cc reads the openssl.cnf section through the
// core, the layers above turn Settings into their own configurations
// (route/router_config.cc). docs/CONFIGURE.md's table is checked against
// this one (tests/provider/settings_test.cc, SettingsDoc).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace mldsa::prov {

struct Settings {
  // Keys and their encodings (OpenSSL 3.5's names).
  bool retain_seed = true;
  bool prefer_seed = true;
  std::string input_formats;   // "" = every format
  std::string output_formats;  // "" = the default order
  bool pkcs8_public_key = false;
  bool hash_ml_dsa_key_oid = false;  // write keys read under a HashML-DSA OID under that OID again
  bool tls_dilithium = false;
  bool tls_falcon = false;
  // The CPU.
  std::string cpu_backend = "auto";
  // Routing (route/router.h).
  std::string gpu = "auto";
  std::string gpu_policy = "measured";
  uint64_t gpu_min_inflight = 8;
  std::optional<uint64_t> gpu_max_batch;    // unset: what fills the devices, at least 1024
  uint64_t gpu_max_wait_us = 1000;
  uint64_t gpu_idle_flush_us = 50;
  std::optional<uint64_t> gpu_queue_depth;  // unset: 8192, at least two batches
  uint64_t gpu_error_cooldown_ms = 1000;
  uint64_t gpu_verify_audit = 1;
  uint64_t gpu_fault_limit = 3;
  bool report = false;
  // The GPU engine (kernels/host/engine.h).
  std::string gpu_devices;  // "" = every device
  std::string gpu_split;
  uint64_t gpu_timeout_ms = 20000;
  std::optional<uint64_t> gpu_staging_threads;  // unset: a quarter of the CPU's threads, at most 8
  uint64_t gpu_memory_mb = 0;                   // 0: chunk buffers bounded by the batch size only
  bool gpu_sign_key_cache = true;
  bool gpu_verify_key_cache = true;
  std::string gpu_kernels = "thread";
  // Test machinery: environment only, honoured only by the test build of the
  // module (route/test_hooks.h); the shipped module ignores them.
  uint64_t sim_devices = 0;  // 0: no simulated device
  std::optional<uint64_t> sim_memory_mb;
  std::string sim_speed;
  std::string sim_faults;
  bool sim_device_work = true;
  std::string test_executor;
  uint64_t test_fail_every = 0;
};

enum class SettingType { boolean, number, choice, text };

struct Setting {
  using Field = std::variant<bool Settings::*, uint64_t Settings::*, std::optional<uint64_t> Settings::*,
                             std::string Settings::*>;
  const char* key;           // openssl.cnf key; nullptr: environment only
  const char* env;           // MLDSA_ACCEL_* variable, which overrides the key
  SettingType type;
  const char* default_text;  // as the docs say it
  const char* values;        // choice: "auto|on|off"; number: "0..1000000"; else a description
  const char* meaning;
  Field field;
  bool test_only = false;    // environment only, test builds only
  uint64_t lo = 0, hi = 0;   // number: the range
  // choice/text: a further check of the whole value (nullptr: none).
  bool (*check)(std::string_view value, std::string* why) = nullptr;
};

// Every setting, in the order the docs list them.
std::span<const Setting> settings_table();
// The row of an openssl.cnf key or an environment variable; nullptr if none.
const Setting* find_setting(std::string_view key_or_env);

// Sets one setting from its text; false with *why ("retain_seed: 'maybe' is
// not a boolean (yes, no, on, off, true, false, 1, 0)").
bool apply_setting(Settings& s, const Setting& row, std::string_view text, std::string* why);
// The MLDSA_ACCEL_* variables over s, read with secure_getenv (a setuid or
// setgid program ignores them); test rows only with test_rows. False with *why
// naming the variable on a bad value.
bool apply_environment(Settings& s, bool test_rows, std::string* why);

// For programs of the core alone (tests, benchmarks): the backend that
// MLDSA_ACCEL_CPU names, as the module would choose it. False with *why when
// the value is bad or this CPU cannot run it.
bool use_cpu_backend_from_environment(std::string* why);

// "1"/"yes"/"true"/"on" and "0"/"no"/"false"/"off", any case; false if neither.
bool parse_bool(std::string_view text, bool& out);

}  // namespace mldsa::prov
