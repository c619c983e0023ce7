// The random()/rand() state moved into application memory: the default sequence is unchanged, and
// a copy of the state array taken at a checkpoint continues the sequence in another process.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "memory/heap_arena.hpp"
#include "process/random_state.hpp"

using namespace c3;

namespace {
std::vector<long> draw(int n) {
  std::vector<long> out;
  for (int i = 0; i < n; ++i) out.push_back(random());
  return out;
}

// A "restart": libc's state is somewhere else entirely, and the application memory (the array)
// is written back from the checkpoint's copy before the saved state is resumed.
void scramble_libc_state() {
  alignas(8) static char elsewhere[128];
  initstate(12345, elsewhere, sizeof elsewhere);
  draw(7);
}

// Leaves libc on a state of the test binary's own, so later tests never depend on the arena.
void park_libc_state() {
  alignas(8) static char parked[128];
  initstate(1, parked, sizeof parked);
}
}  // namespace

TEST_CASE("random state: the adopted default state gives glibc's default sequence") {
  heap::init(heap::kDefaultBase, heap::kDefaultReserve);
  uintptr_t array = random_state::adopt_default();
  CHECK(heap::contains(reinterpret_cast<void *>(array)));
  // glibc's built-in sequence (no srand): what a plain build prints.
  CHECK(draw(3) == std::vector<long>{1804289383, 846930886, 1681692777});
  srand(42);
  CHECK(rand() == 71876166);
  CHECK(rand() == 708592740);
  park_libc_state();
}

TEST_CASE("random state: a saved state array continues the sequence after a restart") {
  heap::init(heap::kDefaultBase, heap::kDefaultReserve);
  uintptr_t adopted = random_state::adopt_default();
  srandom(2024);
  draw(5);  // somewhere in the middle of the array
  uintptr_t current = random_state::prepare_checkpoint();
  CHECK(current == adopted);
  std::vector<char> image(128);
  std::memcpy(image.data(), reinterpret_cast<void *>(current), image.size());
  std::vector<long> expected = draw(40);  // past the end of the array, so the position wraps

  scramble_libc_state();
  std::memcpy(reinterpret_cast<void *>(current), image.data(), image.size());
  REQUIRE(random_state::resume(current));
  CHECK(draw(40) == expected);
  park_libc_state();
}

TEST_CASE("random state: a state the program installed with initstate is the one saved") {
  heap::init(heap::kDefaultBase, heap::kDefaultReserve);
  random_state::adopt_default();
  alignas(8) static char own[256];  // another type (degree 63) than the default
  initstate(7, own, sizeof own);
  draw(11);
  uintptr_t current = random_state::prepare_checkpoint();
  CHECK(current == reinterpret_cast<uintptr_t>(own));
  char image[sizeof own];
  std::memcpy(image, own, sizeof own);
  std::vector<long> expected = draw(70);

  scramble_libc_state();
  std::memcpy(own, image, sizeof own);
  REQUIRE(random_state::resume(current));
  CHECK(draw(70) == expected);
  park_libc_state();
}

TEST_CASE("random state: an array that holds no state is refused") {
  alignas(8) static char garbage[128];
  std::memset(garbage, 0xff, sizeof garbage);  // type word -1
  CHECK_FALSE(random_state::resume(reinterpret_cast<uintptr_t>(garbage)));
  CHECK(random_state::resume(0));  // nothing saved (no adopted state): nothing to do
  park_libc_state();
}
