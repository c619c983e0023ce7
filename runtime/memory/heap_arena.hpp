// The application heap: an allocator whose every byte, metadata included, lives in one range
// mapped at a fixed address, so saving the live extents and writing them back at the same
// address restores the heap exactly (pointers included). Not thread-safe (c3 programs are
// single-threaded or MPI_THREAD_FUNNELED).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace c3::heap {

constexpr uintptr_t kDefaultBase = 0x500000000000ull;
constexpr size_t kDefaultReserve = size_t(64) << 30;

// Maps [base, base+reserve) with MAP_FIXED_NOREPLACE|MAP_NORESERVE and formats an empty heap.
// Throws c3::Error if the range cannot be mapped. Idempotent per process for the same range.
void init(uintptr_t base, size_t reserve);
bool initialized();

// The malloc family with glibc's choices: malloc(0) is a unique block, realloc(p, 0) frees p and
// returns NULL, failures return NULL with errno = ENOMEM. The first call maps the default range
// if init() was not called. free/realloc/usable_size of a pointer that is not an in-use block
// (double free, interior or outside pointer) print "c3: heap corruption: ..." and abort; so
// pointers outside the arena are the caller's business (contains()).
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void free(void *p);
void *memalign(size_t align, size_t size);  // align: power of two (others are rounded up)
size_t usable_size(const void *p);
inline bool contains(const void *p);  // p lies in the mapped range (false before init)

struct Extent {
  uintptr_t addr;
  size_t size;
};
// The bytes a checkpoint must hold: allocator metadata plus live blocks (interiors of large free
// blocks are left out). Ascending, non-overlapping.
std::vector<Extent> live_extents();

// Restore: forget the current heap contents and make [base, base+reserve) zeroed and ready; the
// caller then puts every saved extent back at its address (copied, or whole pages mapped from
// the checkpoint file). After that the heap is exactly the saved one. (An allocation before that
// would format an empty heap there; don't.)
void reset_for_restore();

struct Stats {
  size_t bytes_in_use;  // usable bytes of the blocks in use
  size_t high_water;    // highest address used - base
  size_t blocks_in_use;
};
Stats stats();

// Walks every block and free list and checks the allocator's invariants, including that the
// header describes this process's range (use after copying a saved heap back). Throws c3::Error
// naming the first inconsistency. O(heap blocks).
void verify();

namespace detail {
// The mapped range (reserve 0 until init), fixed by configuration; exposed so contains() inlines
// into the malloc family's hot path.
extern uintptr_t arena_base;
extern size_t arena_reserve;
}  // namespace detail

inline bool contains(const void *p) {
  return reinterpret_cast<uintptr_t>(p) - detail::arena_base < detail::arena_reserve;
}

}  // namespace c3::heap
