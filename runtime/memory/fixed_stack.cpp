#include "memory/fixed_stack.hpp"

#include <sys/mman.h>
#include <ucontext.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "support/error.hpp"
#include "support/text_format.hpp"

// AddressSanitizer must be told about stack switches, or it reports false errors once code on the
// fixed stack throws or longjmps.
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define C3_ASAN_FIBERS 1
#endif

namespace c3::fixed_stack {
namespace {
uintptr_t g_base = 0;
size_t g_size = 0;
void (*g_entry)() = nullptr;

#ifdef C3_ASAN_FIBERS
void *g_caller_fake_stack = nullptr;
const void *g_caller_bottom = nullptr;
size_t g_caller_size = 0;
#endif

void entry_on_fixed_stack() {
#ifdef C3_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(nullptr, &g_caller_bottom, &g_caller_size);
#endif
  g_entry();
#ifdef C3_ASAN_FIBERS
  // Returning resumes the caller through uc_link.
  __sanitizer_start_switch_fiber(nullptr, g_caller_bottom, g_caller_size);
#endif
}

}  // namespace

void map(size_t size) {
  uintptr_t lowest = kTop - size - kGuard;
  void *want = reinterpret_cast<void *>(lowest);
  void *got = mmap(want, size + kGuard, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_NORESERVE, -1, 0);
  if (got == MAP_FAILED || got != want) {
    int err = errno;
    // Kernels before 4.17 ignore MAP_FIXED_NOREPLACE and place the mapping elsewhere.
    if (got != MAP_FAILED) munmap(got, size + kGuard);
    errno = got == MAP_FAILED ? err : EEXIST;
    throw_sys_error("cannot map the application stack at " + hex(lowest) + "-" + hex(kTop) +
                    " (C3_STACK_SIZE=" + std::to_string(size >> 20) + "M)");
  }
  if (mprotect(reinterpret_cast<void *>(lowest + kGuard), size, PROT_READ | PROT_WRITE) != 0)
    throw_sys_error("cannot make the application stack writable");
  g_base = lowest + kGuard;
  g_size = size;
}

bool mapped() { return g_size != 0; }
uintptr_t base() { return g_base; }
uintptr_t top() { return g_base + g_size; }

bool contains(const void *p, size_t size) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return g_size && a >= g_base && a <= top() && size <= top() - a;
}

void run(void (*entry)()) {
  static ucontext_t caller, app;
  if (getcontext(&app) != 0) throw_sys_error("getcontext");
  app.uc_stack.ss_sp = reinterpret_cast<void *>(g_base);
  app.uc_stack.ss_size = g_size;
  app.uc_link = &caller;
  g_entry = entry;
  makecontext(&app, entry_on_fixed_stack, 0);
#ifdef C3_ASAN_FIBERS
  __sanitizer_start_switch_fiber(&g_caller_fake_stack, reinterpret_cast<void *>(g_base), g_size);
#endif
  int rc = swapcontext(&caller, &app);
#ifdef C3_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(g_caller_fake_stack, nullptr, nullptr);
#endif
  if (rc != 0) throw_sys_error("swapcontext");
}

}  // namespace c3::fixed_stack
