// The state of the C library's random()/rand(): glibc keeps the array in libc's own memory and
// the read/write position in libc variables, neither of which a checkpoint holds. c3 moves the
// array into the heap arena at start (initstate/setstate, documented glibc API) and makes glibc
// write the position into the array before each checkpoint, so the state is application memory.
#pragma once
#include <cstdint>

namespace c3::random_state {

// Fresh run, before the application starts: the default state (seed 1, 128 bytes, exactly
// glibc's built-in table) in a block of the heap arena. Returns that block.
uintptr_t adopt_default();

// At a checkpoint: stores the position of the current state in its array and returns the array
// (whatever state is current: the program may have installed its own with initstate/setstate).
uintptr_t prepare_checkpoint();

// Restart, once the application's memory is restored: makes `array` the current state again.
// Returns false when glibc refuses it (the saved array does not hold a state).
bool resume(uintptr_t array);

}  // namespace c3::random_state
