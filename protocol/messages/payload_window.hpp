// Split payloads and blocking in MPICH. A split message's payload needs a receive that only c3
// posts, once its header is in (split_transfer.hpp). While the receiver blocks inside MPICH (a
// collective, a communicator creation) c3 cannot post it, and a sender waiting for that payload
// would never reach the collective. So before such a call a receiver that may get split headers
// *stalls* the ranks that may send them: it marks itself stalled at each, learns how many
// payloads each has announced to it, and takes every one of those (posts its receive, or
// receives it into c3's memory) before it blocks. A sender announces each payload before it
// posts it from the program's buffer; towards a stalled receiver it sends a copy instead, whose
// send completes without the receiver. No thread, no MPI_THREAD_MULTIPLE.
//
// The marks and counts live in an RMA window on MPI_COMM_WORLD, locked (passive target) for the
// whole job: one 64-bit word per pair of ranks, held by the sender: bit 63 is set while the
// receiver stalls it, bit 62 once the receiver asked it to send every message split (set once,
// never cleared: payload_prepost.hpp), the bits below count the payloads announced to that
// receiver. The sender
// updates it with an atomic add and sees the mark in the same instruction; the receiver sets
// the mark and reads the count with one MPI_Fetch_and_op. MPICH 4.0.2 over UCX applies these
// as active messages in the sender's progress engine (measured: one waits for the target to
// enter MPI), so they never interleave with the sender's own update; were they done in shared
// memory instead, both sides' operations would be atomic read-modify-writes of one word.
#pragma once
#include <cstdint>
#include <vector>

namespace c3::mpi::payload_window {

constexpr uint64_t kStalled = uint64_t(1) << 63;
constexpr uint64_t kSplitsAll = uint64_t(1) << 62;
constexpr uint64_t kCountMask = kSplitsAll - 1;

namespace detail {
extern uint64_t *g_words;  // this rank's window: one word per receiver (world rank)
}

// After MPI initialization / before MPI_Finalize: collective over MPI_COMM_WORLD.
void create();
void destroy();

// A split payload to world rank `receiver` is about to be posted. Counts it and says whether
// the receiver stalls this rank (then the payload must not be posted from the program's buffer).
inline bool announce(int receiver) {
  return (__atomic_fetch_add(&detail::g_words[receiver], 1, __ATOMIC_SEQ_CST) & kStalled) != 0;
}

// Whether world rank `receiver` asked this rank to send it every message split (on communicators
// whose large messages travel split). Read on every send: a plain load of this rank's own word,
// which only MPICH's progress on this thread writes.
[[gnu::always_inline]] inline bool splits_all_to(int receiver) {
  return detail::g_words &&
         (__atomic_load_n(&detail::g_words[receiver], __ATOMIC_RELAXED) & kSplitsAll) != 0;
}

// The receiver's side. Asks world rank `sender` to send this rank every message split from the
// next send it makes on (not flushed: it is applied when the sender next enters MPI).
void ask_splits_all(int sender);
// Takes that back and waits until `sender`'s word says so (tests only: between two tests that
// each rely on a fresh job; the protocol itself never takes an ask back).
void unask_splits_all(int sender);

// Stalls each world rank in `senders` that is not stalled yet; `announced`
// (sized to the world) gets, for each newly stalled rank, the number of payloads it has
// announced to this rank so far; the others' entries are left alone.
void stall(const std::vector<int> &senders, std::vector<int64_t> &announced);
// Whether this rank stalls `sender` now.
bool stalls(int sender);
// Lifts every stall of this rank (nothing may block then).
void release_all();
bool stalls_any();

// Payloads this rank has taken from each world rank: a receive posted for it, or received.
void took(int sender);
int64_t taken(int sender);

}  // namespace c3::mpi::payload_window
