// Posting a split payload's receive before its header comes. A split message's payload goes on
// the bulk communicator with the program's tag, so payloads of one (source, tag) match their
// receives in posting order (split_transfer.hpp); a payload receive posted early takes the next
// payload of that pair, which is its own only if every message between travels split and every
// receive posted before it that may take such a message posted its payload receive first.
//
// So a receiver asks a sender, once, to send it every message split (payload_window.hpp: a bit
// the sender reads on every send, never cleared); the sender marks each split header it sends
// from then on (piggyback::kSplitsAll). Messages of one (source, communicator, tag) are matched
// in send order, so once a marked header of that triple was matched, every later one there is
// split, and an exact receive on the triple posts its payload receive at once ("preposted")
// when every receive posted before it that may take such a message did too (or has one posted)
// and no payload of the pair waits drained. From the ask on, every receive on a communicator
// with a bulk awaits its header in the awaiting set (small ones too: they may get split headers
// now), so those receives are all in one place to look at.
//
// If a preposted receive gets no split header after all (it was cancelled, or a sender did not
// split), its payload receive is cancelled; if it already took a payload, that payload and those
// of the later preposted receives of the triple are taken out into the drained store, in order,
// and those receives post their payloads late like any other. (The bytes such a payload receive
// wrote past the message a receive then gets stay in its buffer.)
#pragma once
#include <mpi.h>

#include <cstdint>

#include "state/protocol_state.hpp"

namespace c3::mpi::prepost {

namespace detail {
extern bool g_asked_any;
extern size_t g_unprepared;
// (communicator, source, tag) of the program's: where a marked header was matched.
struct Triple {
  MPI_Comm comm;
  int source, tag;
  bool operator==(const Triple &o) const {
    return comm == o.comm && source == o.source && tag == o.tag;
  }
};
// The triple found marked last: a stream of receives on one triple looks nothing up.
extern Triple g_last_marked;
}

// Whether this rank asked any sender to send it every message split: then every receive on a
// communicator with a bulk takes the general path and awaits its header (no small lane).
[[gnu::always_inline]] inline bool diverting() { return detail::g_asked_any; }

// Receives in the awaiting set whose payload receive only c3 can post, once their header came:
// while there is one, c3 must not block inside MPICH on the program's behalf
// (split::must_poll). A preposted receive needs nothing of c3 for its payload to move.
[[gnu::always_inline]] inline size_t unprepared() { return detail::g_unprepared; }

// Whether receive `r`, about to be posted (not yet in the awaiting set), may post its payload's
// receive at once: an exact large receive on a marked triple, with no unprepared receive before
// it that may take its message and no drained payload.
bool eligible(const Request &r);
// The same for a receive of `bytes` on (comm, source, tag) that would get posting id `posting`.
bool eligible(MPI_Comm comm, int source, int tag, int64_t bytes, uint64_t posting);
// Most of a stream's receives, inline: a large exact receive in Run mode after this rank asked,
// on the triple found marked last, with no unprepared receive (the caller asks
// split::payloads_drained() too). False says nothing: eligible() decides then.
[[gnu::always_inline]] inline bool surely_eligible(MPI_Comm comm, int source, int tag) {
  return detail::g_unprepared == 0 && detail::g_last_marked == detail::Triple{comm, source, tag};
}
// `r` (exact or not, on a communicator with a bulk) was just posted and entered the awaiting
// set; `large`: its capacity is above the bounce limit; `early`: eligible() said so. Preposts
// its payload receive (r.preposted, r.payload_real), or else may ask its sender.
void started(Request &r, bool large, bool early);
// `r` left the awaiting set (its header came, or it ended otherwise).
void stage_over(const Request &r);

// A header marked kSplitsAll was matched on (comm, source, tag).
void marked_header(MPI_Comm comm, int source, int tag);

// A preposted receive's split header came: its payload receive becomes r.real.
void header_came(Request &r);

// The split-message lane's receives on MPI_COMM_WORLD (messages/split_lane.hpp): what
// split::header_stage_started and header_stage_over then header_came do for them, without the
// questions whose answers the lane knows. post_on_world: `r`, its header's receive just posted
// as eligible() allows, enters the awaiting set and posts its payload's receive.
void post_on_world(Request &r);
// Its split header came: it leaves the awaiting set, its payload's receive becomes r.real.
void header_came_on_world(Request &r);
// A preposted receive got no split header (an inline message, an error, a cancel): its payload
// receive is cancelled, or what it took goes to the drained store (see above).
void withdraw(Request &r);
// MPI_Cancel of a preposted receive: cancels the header's receive, then completes `r` (as
// cancelled, or with the message that matched it first).
int cancel(Request &r);

// Payloads that preposted receives took for later ones and gave back (for tests).
uint64_t payloads_given_back();
// Preposted receives waiting for their header now.
size_t preposted_now();
// The awaiting set was emptied (a restored request table).
void awaiting_cleared();

// Tests only, with no receive pending: takes back every ask of this rank and forgets every
// marked triple, as in a fresh job.
void forget_asks();

void setup();     // after the payload window exists
void teardown();  // at MPI_Finalize

}  // namespace c3::mpi::prepost
