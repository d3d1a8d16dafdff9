// fiber.h - user-space execution contexts for the host SIMT implementation
// (kernels/simt/simt_host.cc): one fiber per simulated GPU thread, switched
// at every barrier, warp collective and back-off.
//
// Why fibers, measured (tests/kernels/simt_test.cc, SimtFiber.SwitchCost
// prints both on the machine it runs on): a warp shuffle on the host means
// every one of 32 lanes stops and the next runs. With the hand-written
// switch below that costs ~10 ns per lane; glibc's swapcontext makes a
// sigprocmask system call per switch (~0.3-1 us); one host thread per GPU
// thread meeting at a std::barrier costs ~5-50 us per 32-thread rendezvous
// on a shared 2-core machine (every thread must be woken by the kernel).
// A warp-level Keccak permutation is 216 shuffles, so only the first is
// cheap enough to run the kernels' tests in CI.
//
// x86-64 (System V): the switch saves the callee-saved registers, MXCSR and
// the x87 control word on the old stack and loads them from the new one.
// Elsewhere: ucontext (slower, same behaviour). Under AddressSanitizer and
// ThreadSanitizer every switch is announced to the sanitizer, as their
// fiber interfaces require.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mldsa::gpu::simt {

// An mmap'd stack with a guard page below it (an overflow faults instead of
// corrupting the neighbour's stack).
class FiberStack {
 public:
  explicit FiberStack(size_t bytes);
  ~FiberStack();
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;
  uint8_t* bottom() const { return base_ + guard_; }
  size_t size() const { return bytes_; }

 private:
  uint8_t* base_ = nullptr;
  size_t guard_ = 0, bytes_ = 0;
};

// One execution context: a fiber on a FiberStack, or the OS thread's own
// stack (a default-constructed Context, filled in when it is switched away
// from).
struct Context {
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  void* sp = nullptr;             // x86-64: the saved stack pointer; else a ucontext_t (owned)
  const void* stack_bottom = nullptr;
  size_t stack_size = 0;
  void* fake_stack = nullptr;     // AddressSanitizer's per-fiber state
  void* tsan_fiber = nullptr;     // ThreadSanitizer's fiber
  bool owns_tsan_fiber = false;
};

// Prepares ctx to run entry(arg) on stack when first switched to. entry
// must never return: it ends by switching away for the last time with
// switch_context(..., true).
void make_context(Context& ctx, FiberStack& stack, void (*entry)(void*), void* arg);

// Saves the running context into from and resumes to. finished: from will
// never be resumed (its sanitizer state is released).
void switch_context(Context& from, Context& to, bool finished = false);

// The first thing entry must do (AddressSanitizer learns where it came from).
void fiber_started();

}  // namespace mldsa::gpu::simt
