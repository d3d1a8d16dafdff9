// fiber.cc - see fiber.h.
#include "kernels/simt/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define MLDSA_SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MLDSA_SIMT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define MLDSA_SIMT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MLDSA_SIMT_TSAN 1
#endif
#endif

#if defined(MLDSA_SIMT_ASAN)
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, size_t* size_old);
void __asan_unpoison_memory_region(const volatile void* addr, size_t size);
}
#endif
#if defined(MLDSA_SIMT_TSAN)
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#endif

#if defined(__x86_64__)
// mldsa_simt_switch(&from_sp, to_sp): pushes rbp, rbx, r12-r15 and an
// 8-byte slot with MXCSR and the x87 control word, saves rsp in *from_sp,
// loads to_sp and pops the same frame from it, then returns into the other
// context. mldsa_simt_trampoline is where a new context's first return
// lands: entry (r13) is called with arg (r12) on a 16-byte aligned stack.
asm(R"(
  .text
  .p2align 4
  .globl mldsa_simt_switch
  .hidden mldsa_simt_switch
  .type mldsa_simt_switch,@function
mldsa_simt_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size mldsa_simt_switch, .-mldsa_simt_switch

  .p2align 4
  .globl mldsa_simt_trampoline
  .hidden mldsa_simt_trampoline
  .type mldsa_simt_trampoline,@function
mldsa_simt_trampoline:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size mldsa_simt_trampoline, .-mldsa_simt_trampoline
)");
extern "C" void mldsa_simt_switch(void** from_sp, void* to_sp);
extern "C" void mldsa_simt_trampoline();
#endif

namespace mldsa::gpu::simt {
namespace {

#if defined(MLDSA_SIMT_ASAN)
// The context that switched to the one now running (AddressSanitizer
// reports that context's stack when the switch completes).
thread_local Context* t_came_from = nullptr;
#endif

#if !defined(__x86_64__)
ucontext_t* uctx(Context& c) {
  if (c.sp == nullptr) c.sp = new ucontext_t();
  return static_cast<ucontext_t*>(c.sp);
}
#endif

void finish_switch(Context* resumed) {
#if defined(MLDSA_SIMT_ASAN)
  const void* bottom = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(resumed ? resumed->fake_stack : nullptr, &bottom, &size);
  if (t_came_from && t_came_from->stack_bottom == nullptr) {
    t_came_from->stack_bottom = bottom;  // the OS thread's stack, learnt on its first switch
    t_came_from->stack_size = size;
  }
#else
  (void)resumed;
#endif
}

}  // namespace

FiberStack::FiberStack(size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  guard_ = page;
  bytes_ = (bytes + page - 1) / page * page;
  void* p = mmap(nullptr, guard_ + bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<uint8_t*>(p);
  mprotect(base_, guard_, PROT_NONE);
}

FiberStack::~FiberStack() {
  if (base_) munmap(base_, guard_ + bytes_);
}

Context::Context() {
#if defined(MLDSA_SIMT_TSAN)
  tsan_fiber = __tsan_get_current_fiber();  // replaced by make_context for a fiber
#endif
}

Context::~Context() {
#if defined(MLDSA_SIMT_TSAN)
  if (owns_tsan_fiber) __tsan_destroy_fiber(tsan_fiber);
#endif
#if !defined(__x86_64__)
  delete static_cast<ucontext_t*>(sp);
#endif
}

void make_context(Context& ctx, FiberStack& stack, void (*entry)(void*), void* arg) {
  ctx.stack_bottom = stack.bottom();
  ctx.stack_size = stack.size();
  ctx.fake_stack = nullptr;
#if defined(MLDSA_SIMT_ASAN)
  // An abandoned fiber (a kernel stopped at a deadlock) may have left its
  // frames' redzones poisoned on this stack.
  __asan_unpoison_memory_region(stack.bottom(), stack.size());
#endif
#if defined(MLDSA_SIMT_TSAN)
  if (!ctx.owns_tsan_fiber) {
    ctx.tsan_fiber = __tsan_create_fiber(0);
    ctx.owns_tsan_fiber = true;
  }
#endif
#if defined(__x86_64__)
  // The frame mldsa_simt_switch pops: control slot, r15, r14, r13, r12, rbx,
  // rbp, return address; the trampoline then runs on a 16-byte aligned rsp.
  auto top = reinterpret_cast<uintptr_t>(stack.bottom() + stack.size()) & ~uintptr_t{15};
  auto* frame = reinterpret_cast<uint64_t*>(top - 16 - 8 * 8);
  const uint32_t mxcsr = 0x1F80;  // the ABI's initial state: all exceptions masked, round to nearest
  const uint16_t fpcw = 0x037F;
  uint64_t control = mxcsr | (uint64_t{fpcw} << 32);
  frame[0] = control;
  frame[1] = 0;                                     // r15
  frame[2] = 0;                                     // r14
  frame[3] = reinterpret_cast<uint64_t>(entry);     // r13
  frame[4] = reinterpret_cast<uint64_t>(arg);       // r12
  frame[5] = 0;                                     // rbx
  frame[6] = 0;                                     // rbp
  frame[7] = reinterpret_cast<uint64_t>(&mldsa_simt_trampoline);
  ctx.sp = frame;
#else
  ucontext_t* u = uctx(ctx);
  getcontext(u);
  u->uc_stack.ss_sp = stack.bottom();
  u->uc_stack.ss_size = stack.size();
  u->uc_link = nullptr;
  // makecontext passes int arguments: the pointer goes in two halves.
  const auto bits = reinterpret_cast<uintptr_t>(arg);
  struct Thunk {
    static void run(unsigned lo, unsigned hi, unsigned elo, unsigned ehi) {
      const uintptr_t a = (uintptr_t{hi} << 16 << 16) | lo;
      const uintptr_t e = (uintptr_t{ehi} << 16 << 16) | elo;
      reinterpret_cast<void (*)(void*)>(e)(reinterpret_cast<void*>(a));
    }
  };
  const auto ebits = reinterpret_cast<uintptr_t>(entry);
  makecontext(u, reinterpret_cast<void (*)()>(&Thunk::run), 4, static_cast<unsigned>(bits),
              static_cast<unsigned>(bits >> 16 >> 16), static_cast<unsigned>(ebits), static_cast<unsigned>(ebits >> 16 >> 16));
#endif
}

void switch_context(Context& from, Context& to, bool finished) {
#if defined(MLDSA_SIMT_ASAN)
  t_came_from = &from;
  __sanitizer_start_switch_fiber(finished ? nullptr : &from.fake_stack, to.stack_bottom, to.stack_size);
#else
  (void)finished;
#endif
#if defined(MLDSA_SIMT_TSAN)
  __tsan_switch_to_fiber(to.tsan_fiber, 0);
#endif
#if defined(__x86_64__)
  mldsa_simt_switch(&from.sp, to.sp);
#else
  swapcontext(uctx(from), uctx(to));
#endif
  finish_switch(&from);
}

void fiber_started() { finish_switch(nullptr); }

}  // namespace mldsa::gpu::simt
