#include "messages/borrowed_header.hpp"

#include "memory/fixed_stack.hpp"
#include "memory/globals.hpp"
#include "memory/heap_arena.hpp"
#include "messages/requests.hpp"

namespace c3::mpi::borrowed {

uint64_t g_lent = 0;

bool may_borrow(const void *buf, uintptr_t program_sp) {
#ifndef NDEBUG
  check_lane_count();
#endif
  // Every entry of the table free or the lane's (whose MPICH requests touch only their bounces).
  if (state().requests.size() != g_free_slots.size() + g_small_slots.size() + g_lane_in_use ||
      rt().tainted_by)
    return false;
  const auto *bytes_before = static_cast<const char *>(buf) - piggyback::kHeaderBytes;
  const auto from = reinterpret_cast<uintptr_t>(bytes_before);
  if (from > reinterpret_cast<uintptr_t>(buf)) return false;  // wrapped below address 0
  // c3's frames of this call lie from this function's frame up to program_sp, wherever the
  // program runs (a program may switch to a stack of its own in the heap or in a global).
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (from + piggyback::kHeaderBytes > here && (program_sp == kStackUnknown || from < program_sp))
    return false;
  if (heap::contains(bytes_before) && heap::contains(buf)) return true;  // mapped writable whole
  // The whole stack is mapped writable; above program_sp it holds only the program's frames
  // (and, at its top, the runtime's, which run no code meanwhile).
  if (program_sp != kStackUnknown && from >= program_sp &&
      fixed_stack::contains(reinterpret_cast<const void *>(program_sp), 0) &&
      fixed_stack::contains(bytes_before, piggyback::kHeaderBytes))
    return true;
  return globals::within_one(bytes_before, piggyback::kHeaderBytes + 1);
}

}  // namespace c3::mpi::borrowed
