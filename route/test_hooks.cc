// test_hooks.cc - the test build's hooks: the simulated device
// (kernels/device/sim/sim_device.h) and the test executors (route/test_executors.h).
#include "route/test_hooks.h"

#include "kernels/device/sim/sim_device.h"
#include "route/test_executors.h"

namespace mldsa::route {

bool test_hooks_built() { return true; }

std::shared_ptr<BatchExecutor> test_executor(const TestSettings& t) {
  return t.executor == "cpu" ? make_cpu_executor() : nullptr;
}

namespace {

// The simulated device's configuration; false with *why on bad text (the
// parsers' messages name the variable).
bool sim_config(const TestSettings& t, gpu::SimConfig& c, std::string* why) {
  c.devices = static_cast<int>(t.sim_devices);
  if (t.sim_memory_mb != 0) c.memory_bytes = static_cast<size_t>(t.sim_memory_mb) << 20;
  c.device_work = t.sim_device_work;
  return gpu::parse_sim_speed(t.sim_speed, c.speed, why) && gpu::parse_sim_faults(t.sim_faults, c.faults, why);
}

}  // namespace

bool check_test_settings(const TestSettings& t, std::string* why) {
  gpu::SimConfig c;
  return t.sim_devices == 0 || sim_config(t, c, why);
}

std::shared_ptr<gpu::Platform> test_platform(const TestSettings& t, std::string* why) {
  why->clear();
  gpu::SimConfig c;
  if (t.sim_devices == 0 || !sim_config(t, c, why)) return nullptr;
  return gpu::make_sim_platform(c);
}

std::shared_ptr<BatchExecutor> with_test_faults(std::shared_ptr<BatchExecutor> executor, const TestSettings& t) {
  return t.fail_every > 0 ? with_faults(std::move(executor), t.fail_every) : executor;
}

}  // namespace mldsa::route
