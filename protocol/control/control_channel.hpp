// Control messages of the protocol: records of 64-bit words on a private duplicate of
// MPI_COMM_WORLD, sent nonblocking and read whenever the layer polls. Nothing ever waits for
// one, except MPI_Finalize and the restart.
#pragma once
#include <cstdint>
#include <vector>

namespace c3::mpi::control {

enum Tag : int {
  kInitiated = 1,     // {epoch, messages the sender sent us in epoch - 1, collective report...}
  kFinal = 2,         // {newest checkpoint the sender committed}
  kAllInitiated = 3,  // {epoch}: the sender has Checkpoint-Initiated from all
  kLoggingEnded = 4,  // {epoch}: the sender left NonDet-Log
  kFinalizing = 5,    // {epoch}: the sender is in MPI_Finalize, at that epoch for good
  kReleased = 6,      // {}: the sender, in MPI_Finalize, recorded all its output as shown
  kCommittedHere = 7, // {checkpoint, bytes, start time}: to rank 0, the sender committed its part
};

struct Message {
  int source = 0, tag = 0;
  std::vector<uint64_t> words;  // at least two
};

// Sends `words` to `dest` without waiting; the buffer lives until the send completes.
void post(int dest, int tag, std::vector<uint64_t> words);
inline void post(int dest, int tag, uint64_t a, uint64_t b) { post(dest, tag, {a, b}); }
// Sends {a, b} to every other rank.
void post_to_all(int tag, uint64_t a, uint64_t b);
// Frees the buffers of completed control sends; `block`: waits for all of them.
void reap(bool block);
// Receives the next control message; waits for one when `wait`, else says whether one was there.
bool take(Message &m, bool wait);

}  // namespace c3::mpi::control
