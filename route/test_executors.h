// test_executors.h - executors that exercise the queue, the router and their
// fallbacks without a GPU: test machinery.
#pragma once

#include "route/request.h"

#include <memory>

namespace mldsa::route {

// Computes each item with the core on the dispatcher thread, so the queue,
// the router and their fallbacks are exercised without a GPU. Selected with
// MLDSA_ACCEL_TEST_EXECUTOR=cpu.
std::shared_ptr<BatchExecutor> make_cpu_executor();

// Fault injection: every k-th batch (k >= 1) runs inner, then corrupts every
// output and status of the batch and reports a whole-batch error, so a
// fallback that trusted any of it would be caught. Selected with
// MLDSA_ACCEL_TEST_FAIL_EVERY=k; wraps whichever executor is in use.
std::shared_ptr<BatchExecutor> with_faults(std::shared_ptr<BatchExecutor> inner, unsigned every_k);

}  // namespace mldsa::route
