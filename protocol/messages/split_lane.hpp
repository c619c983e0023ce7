// The split-message lane: MPI_Isend and MPI_Irecv of a message that travels split (above the
// bounce limit, or any message to a receiver that asked for every message split) of a built-in
// type on MPI_COMM_WORLD, decided in the wrapper before the layer's Entry while nothing needs the
// protocol's attention, as the small-message lane's calls are (hooks/fast_paths.hpp):
//   * a send is split::send's header and payload, as start_send would send it;
//   * a receive is taken only where prepost::eligible allows its payload's receive at once: its
//     header's receive and its payload's are both posted, as start_recv would post them.
// So every entry is one the general path knows, and any call may complete it that way. MPI_Waitall
// (small_completion.cpp) finishes in place those still as the lane left them: one PMPI_Waitall
// over the headers (with every other request of the call), each checked to be a split header
// of this epoch while this rank runs normally, then one over the payloads, each then counted
// and handed out. Anything else goes to the general completion. The general path of a 16 KiB
// message cost about 1,200 instructions at the receiver and 900 at the sender (callgrind).
// Unlike the small lane's requests, these move the program's own bytes: they never count in
// g_lane_in_use (borrowed_header.hpp).
#pragma once
#include <mpi.h>

#include "messages/mpich_status.hpp"
#include "messages/payload_prepost.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi::split_lane {

// Whether `r` is the lane's and as the lane left it: a send not yet complete, or a receive
// whose header's and payload's receives are both still posted (the general path took neither).
[[gnu::always_inline]] inline bool untouched(const Request &r) {
  return r.split_lane && !r.done &&
         (r.kind == Request::Kind::Send || (r.preposted && r.awaits_header));
}

// A lane receive's header receive completed with `st`: whether it brought a split header of
// epoch colour `now` (piggyback::make_header without the logging bit) while this rank runs
// normally (`run`), which then needs nothing but its payload; `header` gets it (kSplitsAll out).
[[gnu::always_inline]] inline bool plain_header(const Request &r, const MPI_Status &st,
                                                int32_t now, bool run, int32_t &header) {
  if (!run || st.count_lo != piggyback::kSplitHeaderBytes || st.count_hi_and_cancelled != 0 ||
      st.MPI_ERROR != MPI_SUCCESS)
    return false;
  if (!piggyback::decode_split_header(
          reinterpret_cast<const unsigned char *>(piggyback::wire_of(r)), header))
    return false;
  piggyback::split_flag(header);
  return (header & ~4) == now;
}

// Its split header `header` came: the payload's receive becomes r.real, as post_payload_receive
// makes it. (No earlier receive needs settling first: every earlier one that may take a message
// of r's triple posted its payload's receive before r's, or r would not have been preposted.)
[[gnu::always_inline]] inline void header_came(Request &r, int32_t header) {
  r.payload_pending = true;
  r.split_header = header;
  prepost::header_came_on_world(r);
}

// Gives a finished entry back to the small-message slots, with the fields only this lane
// writes reset (take_small_slot's promise).
[[gnu::always_inline]] inline void release(Request &r, MPI_Request &handle) {
  r.split_lane = false;
  r.split_send = false;
  r.payload_pending = false;
  r.split_header = 0;
  release_small_slot(r, handle);
}

// Lane receives and sends MPI_Waitall finished in place (the tests' evidence).
extern uint64_t g_finished;

}  // namespace c3::mpi::split_lane
