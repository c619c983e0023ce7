// A blocking send or receive of a mid-size contiguous message may carry its header in the 4 bytes
// right before the program's buffer instead of copying the payload through a bounce: those bytes
// are saved, the header takes their place for the one MPICH call (the message is then header and
// payload, exactly as through a bounce), and they are put back before the call returns to the
// program. Only where nothing but the program can read or write those bytes while MPICH runs:
//   * no request of the table but the small-message lane's is in use: no other nonblocking
//     operation, persistent request or nonblocking collective may be moving bytes next to the
//     buffer (the lane's move only their own bounces; cheap to tell: every entry is free or
//     counted in g_lane_in_use; otherwise the message takes the bounce), and the program has
//     made no call c3 passes to MPICH untracked (a one-sided window, say, whose peers may put
//     bytes into it whenever MPICH makes progress);
//   * the bytes lie in memory only the program uses and that is writable wherever the buffer is
//     (a send's buffer may be read-only data): the c3 heap (which MPICH never allocates from),
//     the application stack above the call's own frame, or the same registered global as the
//     buffer's start. Not memory of the C library's malloc (its block headers), not bytes that
//     may belong to the C library or to c3 (copy-relocated variables sit among the globals),
//     and never bytes of c3's own frames of the call, wherever the program's stack is (a
//     program may run on a stack of its own in the heap or in a global).
// c3 programs have one thread (docs/user-guide.md, section 8; the c3 heap is not thread-safe either)
// and no c3 code runs during the MPICH call, so only a signal handler or an error handler of the
// program's could see the header meanwhile (the user guide says so).
#pragma once
#include <cstdint>

#include "messages/piggyback.hpp"

namespace c3::mpi::borrowed {

// From this payload size on the copies cost more than deciding (benchmark section 6: below 1
// KiB the bounce and the header in place ran alike).
constexpr int kFrom = 1024;

// A blocking call made elsewhere than in the program's own wrapper: its stack buffers keep the
// bounce (the frames between the program and the call are not known).
constexpr uintptr_t kStackUnknown = UINTPTR_MAX;

// Whether the kHeaderBytes bytes before `buf` may carry the header of a blocking call.
// `program_sp`: where the program's frames begin (program_frames()), or kStackUnknown.
bool may_borrow(const void *buf, uintptr_t program_sp);

// The same for a payload of `bytes`, with the size test inline: most messages are smaller.
[[gnu::always_inline]] inline bool borrow(const void *buf, int bytes, uintptr_t program_sp) {
  return bytes >= kFrom && may_borrow(buf, program_sp);
}

// An address at or above where the program's frames begin when the wrapper this inlines into was
// called (its canonical frame address). gcc 12's __builtin_dwarf_cfa() in a function that
// realigns its stack (the wrappers' bounces are 64-byte aligned) gives the stack pointer at entry
// rounded down to 64 bytes, 16 to 64 bytes below the true address, with the return address in
// between; 128 bytes more leave the wrapper's frame out with room to spare (stack buffers in the
// lowest 128 bytes of the calling frame keep the bounce).
constexpr uintptr_t kFrameSlack = 128;
[[gnu::always_inline]] inline uintptr_t program_frames() {
  return reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa()) + kFrameSlack;
}

// Messages whose header was lent bytes (the tests' evidence that the path is taken).
extern uint64_t g_lent;

}  // namespace c3::mpi::borrowed
