// settings.cc - the settings table, its grammars, and the environment.
#include "provctx/settings.h"

#include "cpu/mldsa.h"
#include "kernels/host/device_list.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <vector>

namespace mldsa::prov {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool parse_number(std::string_view text, uint64_t lo, uint64_t hi, uint64_t& out) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || v < lo || v > hi) return false;
  out = v;
  return true;
}

// cpu_backend: a backend, optionally "@<tuning>" for one of its tables, from
// the core's own list of what this build has (cpu/backend.cc).
bool check_cpu_backend(std::string_view v, std::string* why) {
  const std::vector<std::string> known = mldsa::backend_specs();
  if (std::find(known.begin(), known.end(), v) != known.end()) return true;
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  *why = "is none of this build's " + list;
  return false;
}

bool check_device_list(std::string_view v, std::string* why) {
  std::vector<int> out;
  if (mldsa::gpu::parse_device_list(v, "", 1024, out, why)) return true;
  *why = "is not a comma list of device ordinals";
  return false;
}

bool check_split(std::string_view v, std::string* why) {
  std::vector<int> out;
  if (v.empty() || mldsa::gpu::parse_device_list("0", v, 1, out, why)) return true;
  *why = "is not a number from 1 to 16";
  return false;
}

using S = Settings;
using T = SettingType;

// clang-format off
const Setting kTable[] = {
  // Keys and their encodings.
  {"ml-dsa.retain_seed", "MLDSA_ACCEL_RETAIN_SEED", T::boolean, "yes", "yes|no",
   "keep the 32-byte seed in generated and loaded keys (needed to write the seed form)", &S::retain_seed},
  {"ml-dsa.prefer_seed", "MLDSA_ACCEL_PREFER_SEED", T::boolean, "yes", "yes|no",
   "when an import gives both a seed and an expanded key, use the seed", &S::prefer_seed},
  {"ml-dsa.input_formats", "MLDSA_ACCEL_INPUT_FORMATS", T::text, "(all)", "list of PKCS#8 formats",
   "PKCS#8 private-key formats the decoders accept (docs/CONFIGURE.md lists the names)", &S::input_formats},
  {"ml-dsa.output_formats", "MLDSA_ACCEL_OUTPUT_FORMATS", T::text, "(seed-priv, priv-only, ...)", "list of PKCS#8 formats",
   "PKCS#8 private-key formats the encoders write, in order of preference", &S::output_formats},
  {"pkcs8_public_key", "MLDSA_ACCEL_PKCS8_PUBLIC_KEY", T::boolean, "no", "yes|no",
   "write PKCS#8 v2 (OneAsymmetricKey) with the public key in publicKey [1]", &S::pkcs8_public_key},
  {"ml-dsa.hash_ml_dsa_key_oid", "MLDSA_ACCEL_HASH_ML_DSA_KEY_OID", T::boolean, "no", "yes|no",
   "write a key read under a HashML-DSA OID (2.16.840.1.101.3.4.3.32-34) under that OID again (no: its ML-DSA OID)",
   &S::hash_ml_dsa_key_oid},
  {"tls_dilithium", "MLDSA_ACCEL_TLS_DILITHIUM", T::boolean, "no", "yes|no",
   "offer round-3 Dilithium's TLS 1.3 code points (OpenSSL 3.2+)", &S::tls_dilithium},
  {"tls_falcon", "MLDSA_ACCEL_TLS_FALCON", T::boolean, "no", "yes|no",
   "offer round-3 Falcon's TLS 1.3 code points (oqs-provider's; OpenSSL 3.2+)", &S::tls_falcon},
  // The CPU.
  {"cpu_backend", "MLDSA_ACCEL_CPU", T::choice, "auto", "auto|avx512|avx2|neon|ref[@tuning]",
   "the CPU backend (and table) every operation runs on; auto: the best this CPU runs", &S::cpu_backend,
   false, 0, 0, check_cpu_backend},
  // Routing.
  {"gpu", "MLDSA_ACCEL_GPU", T::choice, "auto", "auto|on|off",
   "use a GPU for bulk work: auto (if there is one), on (refuse to load without one), off", &S::gpu},
  {"gpu_policy", "MLDSA_ACCEL_GPU_POLICY", T::choice, "measured", "measured|always",
   "bulk requests go to the GPU while it is measured faster than the CPU, or always", &S::gpu_policy},
  {"gpu_min_inflight", "MLDSA_ACCEL_GPU_MIN_INFLIGHT", T::number, "8", "0..1000000",
   "requests in flight above which a call counts as bulk (ASYNC jobs always do)", &S::gpu_min_inflight,
   false, 0, 1000000},
  {"gpu_max_batch", "MLDSA_ACCEL_GPU_MAX_BATCH", T::number, "(fills the devices, >= 1024)", "1..1048576",
   "the most requests in one GPU batch", &S::gpu_max_batch, false, 1, 1u << 20},
  {"gpu_max_wait_us", "MLDSA_ACCEL_GPU_MAX_WAIT_US", T::number, "1000", "0..10000000",
   "a batch leaves once its oldest request waited this long", &S::gpu_max_wait_us, false, 0, 10000000},
  {"gpu_idle_flush_us", "MLDSA_ACCEL_GPU_IDLE_FLUSH_US", T::number, "50", "0..10000000",
   "a batch leaves once nothing new arrived for this long (0: off)", &S::gpu_idle_flush_us, false, 0, 10000000},
  {"gpu_queue_depth", "MLDSA_ACCEL_GPU_QUEUE_DEPTH", T::number, "(8192, >= 2 batches)", "1..16777216",
   "requests queued or executing at most; beyond it requests run on the CPU", &S::gpu_queue_depth,
   false, 1, 1u << 24},
  {"gpu_error_cooldown_ms", "MLDSA_ACCEL_GPU_ERROR_COOLDOWN_MS", T::number, "1000", "0..3600000",
   "after a GPU error, new work runs on the CPU for this long", &S::gpu_error_cooldown_ms, false, 0, 3600000},
  {"gpu_verify_audit", "MLDSA_ACCEL_GPU_VERIFY_AUDIT", T::number, "1", "1..1000000",
   "one GPU verify accept in this many is re-checked on the CPU (1: every one; rejects always are)",
   &S::gpu_verify_audit, false, 1, 1000000},
  {"gpu_fault_limit", "MLDSA_ACCEL_GPU_FAULT_LIMIT", T::number, "3", "1..1000000",
   "wrong GPU results (caught by the CPU's checks) after which the GPU is no longer used", &S::gpu_fault_limit,
   false, 1, 1000000},
  {"report", "MLDSA_ACCEL_REPORT", T::boolean, "no", "yes|no",
   "at unload, print on stderr where the work went (CPU, GPU batches, fallbacks)", &S::report},
  // The GPU engine.
  {"gpu_devices", "MLDSA_ACCEL_GPUS", T::text, "(all)", "comma list of ordinals",
   "the CUDA devices the engine uses, in that order", &S::gpu_devices, false, 0, 0, check_device_list},
  {"gpu_split", "MLDSA_ACCEL_GPU_SPLIT", T::text, "(1: each device once)", "1..16",
   "each listed device as k logical devices, each with its own streams and buffers", &S::gpu_split,
   false, 0, 0, check_split},
  {"gpu_timeout_ms", "MLDSA_ACCEL_GPU_TIMEOUT_MS", T::number, "20000", "1..3600000",
   "a chunk still running after this long counts as a device error (its requests run on the CPU)",
   &S::gpu_timeout_ms, false, 1, 3600000},
  {"gpu_staging_threads", "MLDSA_ACCEL_GPU_STAGING_THREADS", T::number, "(a quarter of the CPU threads, <= 8)",
   "0..64", "host threads that help copy big chunks into and out of pinned memory", &S::gpu_staging_threads,
   false, 0, 64},
  {"gpu_memory_mb", "MLDSA_ACCEL_GPU_MEMORY_MB", T::number, "0", "0..16777216",
   "the most device memory each logical device's chunk buffers grow to (0: as big batches need; key caches apart)",
   &S::gpu_memory_mb, false, 0, 1u << 24},
  {"gpu_sign_key_cache", "MLDSA_ACCEL_SIGN_KEY_CACHE", T::boolean, "yes", "yes|no",
   "keep expanded private keys in device memory between batches", &S::gpu_sign_key_cache},
  {"gpu_verify_key_cache", "MLDSA_ACCEL_VERIFY_KEY_CACHE", T::boolean, "yes", "yes|no",
   "keep expanded public keys in device memory between batches", &S::gpu_verify_key_cache},
  {"gpu_kernels", "MLDSA_ACCEL_GPU_KERNELS", T::choice, "thread", "thread|coop",
   "the kernel set every launch runs (docs/GPU.md)", &S::gpu_kernels},
  // Test machinery: the test build of the module only.
  {nullptr, "MLDSA_ACCEL_SIM_DEVICES", T::number, "0", "0..16",
   "test build: run the GPU engine on this many simulated devices instead of CUDA", &S::sim_devices, true, 0, 16},
  {nullptr, "MLDSA_ACCEL_SIM_MEMORY_MB", T::number, "(4096)", "1..16777216",
   "test build: each simulated device's memory", &S::sim_memory_mb, true, 1, 1u << 24},
  {nullptr, "MLDSA_ACCEL_SIM_SPEED", T::text, "(no delays)", "latency_us=..,keygen_ns=..,...",
   "test build: the simulated device's modelled speed (docs/GPU.md)", &S::sim_speed, true},
  {nullptr, "MLDSA_ACCEL_SIM_FAULTS", T::text, "(none)", "OP:N[:KIND],...",
   "test build: faults the simulated device raises (docs/GPU.md)", &S::sim_faults, true},
  {nullptr, "MLDSA_ACCEL_SIM_DEVICE_WORK", T::boolean, "yes", "yes|no",
   "test build: no makes the simulated device skip the work (host-side benchmarks only)", &S::sim_device_work,
   true},
  {nullptr, "MLDSA_ACCEL_TEST_EXECUTOR", T::choice, "(none)", "cpu",
   "test build: the core on the dispatcher thread stands in for the GPU", &S::test_executor, true},
  {nullptr, "MLDSA_ACCEL_TEST_FAIL_EVERY", T::number, "0", "0..1000000",
   "test build: every k-th batch fails after corrupting its outputs (0: never)", &S::test_fail_every,
   true, 0, 1000000},
};
// clang-format on

// The grammar's words, for messages.
std::string choices_of(const Setting& row) {
  std::string out;
  for (char c : std::string_view(row.values)) out += c == '|' ? std::string(", ") : std::string(1, c);
  return out;
}

bool is_choice(const Setting& row, std::string_view v) {
  std::string_view rest = row.values;
  for (;;) {
    const size_t bar = rest.find('|');
    if (rest.substr(0, bar) == v) return true;
    if (bar == std::string_view::npos) return false;
    rest.remove_prefix(bar + 1);
  }
}

}  // namespace

std::span<const Setting> settings_table() { return kTable; }

const Setting* find_setting(std::string_view key_or_env) {
  for (const Setting& row : kTable) {
    if ((row.key != nullptr && key_or_env == row.key) || key_or_env == row.env) return &row;
  }
  return nullptr;
}

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

bool apply_setting(Settings& s, const Setting& row, std::string_view text, std::string* why) {
  const std::string name = row.key != nullptr ? row.key : row.env;
  auto fail = [&](const std::string& what) {
    *why = name + ": '" + std::string(text) + "' " + what;
    return false;
  };
  switch (row.type) {
    case SettingType::boolean: {
      bool b = false;
      if (!parse_bool(text, b)) return fail("is not a boolean (yes, no, on, off, true, false, 1, 0)");
      s.*std::get<bool Settings::*>(row.field) = b;
      return true;
    }
    case SettingType::number: {
      uint64_t n = 0;
      if (!parse_number(text, row.lo, row.hi, n))
        return fail("is not a whole number in " + std::to_string(row.lo) + ".." + std::to_string(row.hi));
      if (auto* f = std::get_if<uint64_t Settings::*>(&row.field)) s.*(*f) = n;
      else s.*std::get<std::optional<uint64_t> Settings::*>(row.field) = n;
      return true;
    }
    case SettingType::choice: {
      const std::string v = lower(text);
      std::string what;
      if (row.check != nullptr ? !row.check(v, &what) : !is_choice(row, v))
        return fail(row.check != nullptr ? what : "is not " + choices_of(row));
      s.*std::get<std::string Settings::*>(row.field) = v;
      return true;
    }
    case SettingType::text: {
      std::string what;
      if (row.check != nullptr && !row.check(text, &what)) return fail(what);
      s.*std::get<std::string Settings::*>(row.field) = std::string(text);
      return true;
    }
  }
  return fail("has an unknown type");
}

bool apply_environment(Settings& s, bool test_rows, std::string* why) {
  for (const Setting& row : kTable) {
    if (row.test_only && !test_rows) continue;
    // Unset and empty are alike: `MLDSA_ACCEL_GPU= cmd` leaves the key's value.
    const char* v = secure_getenv(row.env);
    if (v == nullptr || *v == '\0') continue;
    if (!apply_setting(s, row, v, why)) {
      if (row.key != nullptr) *why += std::string(" (from ") + row.env + ")";
      return false;
    }
  }
  return true;
}

bool use_cpu_backend_from_environment(std::string* why) {
  Settings s;
  if (!apply_environment(s, false, why)) return false;
  if (mldsa::select_backend(s.cpu_backend)) return true;
  *why = "MLDSA_ACCEL_CPU: this CPU cannot run '" + s.cpu_backend + "'";
  return false;
}

}  // namespace mldsa::prov
