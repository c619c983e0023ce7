// Storage of the variable-length arrays and alloca blocks of instrumented functions, which the
// precompiler moves to the c3 heap (precompiler/passes/MoveVariableArrays.cpp): part of every
// checkpoint, at the same address after a restart. A full heap ends the program, as a stack
// overflow would, but with a message saying what to change.
#include <cstdio>
#include <cstdlib>

#include "c3/c3_abi.h"
#include "memory/heap_arena.hpp"
#include "support/error.hpp"

namespace {

void *allocate(unsigned long size, const char *what) {
  void *p = nullptr;
  try {
    p = c3::heap::malloc(size ? size : 1);
  } catch (const c3::Error &e) {
    std::fprintf(stderr, "c3: error: %s\n", e.what());
    std::abort();
  }
  if (!p) {
    std::fprintf(stderr,
                 "c3: error: the c3 heap has no room for %s of %lu bytes; raise C3_HEAP_SIZE\n",
                 what, size);
    std::abort();
  }
  return p;
}

// An alloca block: the blocks of one call form a list, freed when it returns. The header keeps
// the bytes after it as aligned as the heap's blocks (16).
struct alignas(16) AllocaBlock {
  AllocaBlock *next;
};

}  // namespace

extern "C" {

void *__c3_vla_alloc(void *old, unsigned long size) {
  if (old) c3::heap::free(old);
  return allocate(size, "a variable-length array");
}

void __c3_vla_free(void *storage) {
  if (storage) c3::heap::free(storage);
}

void *__c3_alloca(void **list, unsigned long size) {
  auto *block = static_cast<AllocaBlock *>(allocate(sizeof(AllocaBlock) + size, "alloca()"));
  block->next = static_cast<AllocaBlock *>(*list);
  *list = block;
  return block + 1;
}

void __c3_alloca_free(void **list) {
  for (auto *block = static_cast<AllocaBlock *>(*list); block;) {
    AllocaBlock *next = block->next;
    c3::heap::free(block);
    block = next;
  }
  *list = nullptr;
}

}  // extern "C"
