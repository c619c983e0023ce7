// The malloc family the precompiler renames application calls to (c3_abi.h). Arena pointers go
// to the c3 heap; pointers from elsewhere (libc allocations made by getline, the library, ...)
// go back to libc. Semantics follow glibc where the C standard leaves a choice (malloc(0) is a
// unique pointer, realloc(p, 0) frees and returns NULL), so programs behave as without c3.
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "c3/c3_abi.h"
#include "support/error.hpp"
#include "memory/heap_arena.hpp"

namespace {

[[noreturn]] void die(const c3::Error &e) {
  std::fprintf(stderr, "c3: error: %s\n", e.what());
  std::abort();
}

bool is_power_of_two(unsigned long v) { return v != 0 && (v & (v - 1)) == 0; }

// Entry points that may have to map the arena first (see heap::malloc) and cannot throw into C.
template <typename F>
auto guarded(F &&f) -> decltype(f()) {
  try {
    return f();
  } catch (const c3::Error &e) {
    die(e);
  }
}

}  // namespace

extern "C" {

void *__c3_malloc(unsigned long size) {
  return guarded([&] { return c3::heap::malloc(size); });
}

void *__c3_calloc(unsigned long n, unsigned long size) {
  return guarded([&] { return c3::heap::calloc(n, size); });
}

void *__c3_realloc(void *p, unsigned long size) {
  if (!p) return __c3_malloc(size);
  if (!c3::heap::contains(p)) return ::realloc(p, size);
  return c3::heap::realloc(p, size);
}

void *__c3_reallocarray(void *p, unsigned long n, unsigned long size) {
  unsigned long total;
  if (__builtin_mul_overflow(n, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return __c3_realloc(p, total);
}

void __c3_free(void *p) {
  if (c3::heap::contains(p))  // NULL is outside and libc's free ignores it
    c3::heap::free(p);
  else
    ::free(p);
}

int __c3_posix_memalign(void **out, unsigned long align, unsigned long size) {
  if (!is_power_of_two(align) || align % sizeof(void *) != 0) return EINVAL;
  int saved_errno = errno;  // posix_memalign reports through its result, errno stays
  void *p = guarded([&] { return c3::heap::memalign(align, size); });
  if (!p) {
    errno = saved_errno;
    return ENOMEM;
  }
  *out = p;
  return 0;
}

void *__c3_aligned_alloc(unsigned long align, unsigned long size) {
  if (!is_power_of_two(align)) {
    errno = EINVAL;
    return nullptr;
  }
  return guarded([&] { return c3::heap::memalign(align, size); });
}

void *__c3_memalign(unsigned long align, unsigned long size) {
  // Like glibc: a non-power-of-two alignment is rounded up, an impossible one is EINVAL.
  if (align > (~0ul >> 1) + 1) {
    errno = EINVAL;
    return nullptr;
  }
  return guarded([&] { return c3::heap::memalign(align, size); });
}

void *__c3_valloc(unsigned long size) {
  return __c3_memalign(static_cast<unsigned long>(sysconf(_SC_PAGESIZE)), size);
}

char *__c3_strdup(const char *s) {
  size_t n = std::strlen(s) + 1;
  char *p = static_cast<char *>(__c3_malloc(n));
  if (p) std::memcpy(p, s, n);
  return p;
}

char *__c3_strndup(const char *s, unsigned long n) {
  size_t len = strnlen(s, n);
  char *p = static_cast<char *>(__c3_malloc(len + 1));
  if (p) {
    std::memcpy(p, s, len);
    p[len] = '\0';
  }
  return p;
}

unsigned long __c3_malloc_usable_size(void *p) {
  if (!p) return 0;
  if (!c3::heap::contains(p)) return ::malloc_usable_size(p);
  return c3::heap::usable_size(p);
}

}  // extern "C"
