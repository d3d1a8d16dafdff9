// router_config.cc - the settings' values turned into the router's, the
// engine's and the test machinery's configurations.
#include "route/router_config.h"

namespace mldsa::route {

gpu::EngineConfig engine_config(const prov::Settings& s) {
  gpu::EngineConfig e;
  e.gpus = s.gpu_devices;
  e.split = s.gpu_split;
  e.timeout = std::chrono::milliseconds(s.gpu_timeout_ms);
  if (s.gpu_staging_threads) e.staging_threads = static_cast<int>(*s.gpu_staging_threads);
  e.buffer_bytes_limit = static_cast<size_t>(s.gpu_memory_mb) << 20;
  e.sign_key_cache = s.gpu_sign_key_cache;
  e.verify_key_cache = s.gpu_verify_key_cache;
  e.kernels = s.gpu_kernels == "coop" ? gpu::KernelSet::coop : gpu::KernelSet::thread;
  return e;
}

RouterConfig router_config(const prov::Settings& s) {
  RouterConfig c;
  c.gpu = s.gpu == "on" ? GpuMode::on : s.gpu == "off" ? GpuMode::off : GpuMode::automatic;
  c.policy = s.gpu_policy == "always" ? GpuPolicy::always : GpuPolicy::measured;
  c.min_inflight = s.gpu_min_inflight;
  if (s.gpu_max_batch) {
    c.limits.max_batch = *s.gpu_max_batch;
    c.max_batch_set = true;
  }
  c.limits.max_wait = std::chrono::microseconds(s.gpu_max_wait_us);
  c.limits.idle_flush = std::chrono::microseconds(s.gpu_idle_flush_us);
  if (s.gpu_queue_depth) {
    c.limits.capacity = *s.gpu_queue_depth;
    c.queue_depth_set = true;
  }
  c.error_cooldown = std::chrono::milliseconds(s.gpu_error_cooldown_ms);
  c.verify_audit = s.gpu_verify_audit;
  c.fault_limit = s.gpu_fault_limit;
  c.cpu_backend = s.cpu_backend;
  c.report = s.report;
  c.engine = engine_config(s);
  c.test.sim_devices = static_cast<unsigned>(s.sim_devices);
  c.test.sim_memory_mb = s.sim_memory_mb.value_or(0);
  c.test.sim_speed = s.sim_speed;
  c.test.sim_faults = s.sim_faults;
  c.test.sim_device_work = s.sim_device_work;
  c.test.executor = s.test_executor;
  c.test.fail_every = static_cast<unsigned>(s.test_fail_every);
  return c;
}

}  // namespace mldsa::route
