// The application's stack, mapped at a fixed address so that replaying the call chain after a
// restart puts every frame where it was.
#pragma once
#include <cstddef>
#include <cstdint>

namespace c3::fixed_stack {

constexpr uintptr_t kTop = 0x600000000000ull;
constexpr size_t kGuard = 4096;

// Maps [kTop - size, kTop) read-write (MAP_NORESERVE) with a PROT_NONE guard page below it.
// Throws c3::Error if the range is taken. Call once.
void map(size_t size);
bool mapped();
uintptr_t base();  // lowest usable address
uintptr_t top();

// True if [p, p+size) lies inside the mapped stack.
bool contains(const void *p, size_t size);

// Runs entry() on the fixed stack and returns when it returns. The stack pointer entry() starts
// with depends only on the stack's top, so it is the same in every process.
void run(void (*entry)());

}  // namespace c3::fixed_stack
