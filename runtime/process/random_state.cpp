#include "process/random_state.hpp"

#include <stdlib.h>

#include "support/error.hpp"
#include "memory/heap_arena.hpp"

namespace c3::random_state {
namespace {
// glibc's default generator: TYPE_3 (degree 31), 4 bytes of type and position, 31 words.
constexpr size_t kStateBytes = 128;
}  // namespace

uintptr_t adopt_default() {
  void *array = heap::malloc(kStateBytes);
  if (!array) throw Error("out of heap arena memory for the random() state");
  initstate(1, static_cast<char *>(array), kStateBytes);
  return reinterpret_cast<uintptr_t>(array);
}

uintptr_t prepare_checkpoint() {
  // Switching away writes the current type and position into the word before the current
  // array; switching straight back changes nothing else. The array switched to is the runtime's
  // own: a type-0 state (no position) that no application memory depends on.
  alignas(8) static char scratch[8] = {};  // type word 0 (TYPE_0), one state word
  char *current = setstate(scratch);
  if (!current) return 0;
  setstate(current);
  return reinterpret_cast<uintptr_t>(current);
}

bool resume(uintptr_t array) {
  if (!array) return true;
  return setstate(reinterpret_cast<char *>(array)) != nullptr;
}

}  // namespace c3::random_state
