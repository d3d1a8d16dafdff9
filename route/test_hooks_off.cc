// test_hooks_off.cc - the shipped module's test hooks: none.
#include "route/test_hooks.h"

namespace mldsa::route {

bool test_hooks_built() { return false; }

std::shared_ptr<BatchExecutor> test_executor(const TestSettings&) { return nullptr; }

bool check_test_settings(const TestSettings&, std::string*) { return true; }

std::shared_ptr<gpu::Platform> test_platform(const TestSettings&, std::string* why) {
  why->clear();
  return nullptr;
}

std::shared_ptr<BatchExecutor> with_test_faults(std::shared_ptr<BatchExecutor> executor, const TestSettings&) {
  return executor;
}

}  // namespace mldsa::route
