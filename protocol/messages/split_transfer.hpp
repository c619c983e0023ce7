// Large messages travel in two parts, so their payload moves without a copy: the 3-byte split
// header on the program's communicator, where matching happens exactly as the program asked, and
// the payload untouched, in the program's own datatype, on a private duplicate ("bulk") with the
// same tag. A receive that matched a split header posts the payload's receive for that source
// and tag. Payloads of one (source, tag) pair match in send order, so their receives must be
// posted in the order the headers were matched; for one (source, tag) that is posting order (a
// later-posted receive never takes an earlier message of the pair), so earlier receives that may
// hold such a header are settled first.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "handles/handle_args.hpp"
#include "messages/payload_prepost.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi::split {

// The private duplicate ("bulk") of a communicator (the program's handle) that carries its split
// payloads: MPI_COMM_WORLD's, and one made with every communicator the program creates
// (handles/communicators.cpp); MPI_COMM_NULL where there is none (MPI_COMM_SELF, a communicator
// of MPI_Comm_idup or one c3 does not track).
MPI_Comm bulk_of(MPI_Comm app);
// A bulk for a new communicator (collective over its members, like its creation).
MPI_Comm make_bulk(MPI_Comm real);
// Whether large messages on `comm` travel split: where it has a bulk. Then every message there
// above the bounce limit does, so a message that carries its header inline has at most
// kBounceLimit payload bytes.
inline bool splits_large(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD ? rt().bulk != MPI_COMM_NULL : bulk_of(comm) != MPI_COMM_NULL;
}
// Whether a send of (count, type) on `comm` to world rank `world_dest` travels split: a large
// one, or any to a receiver that asked for every message split (payload_window.hpp).
bool sends_split(MPI_Comm comm, int world_dest, int count, MPI_Datatype type);

// Sends the header, then starts the payload (`request`) or sends it (`request` null). A buffered
// send comes here as c3's packed copy (MPI_PACKED, standard mode). Towards a receiver that
// stalls this rank (payload_window.hpp) the payload goes from a packed copy and the program's
// send completes with the header's (synchronously sent for a synchronous send).
int send(const void *buf, int count, MPI_Datatype type, int dest, int tag, CommArg comm,
         SendMode mode, int32_t header, MPI_Request *request);

// `r` matched a split header from (source, tag): posts the payload's receive into r's buffer.
void post_payload_receive(Request &r, int source, int tag, int32_t header);

// Waits for every receive awaiting a header on `comm`, posted before `before_posting`, that may
// have matched one from (source, tag), in posting order, posting their payload receives. (Only
// those can get a split header: a message bigger than a receive's buffer is an error anyway.)
void settle_earlier_receives(MPI_Comm comm, int source, int tag, uint64_t before_posting,
                             const Request *except);

// Payloads a preposted receive took for a later one (payload_prepost.hpp) go before any other
// drained payload of (source, tag) on `app`'s bulk, in order.
void put_back_drained(MPI_Comm app, int source, int tag, std::vector<std::string> &&payloads);

// Whether payloads that arrived before their headers were matched wait here (a stalled rank
// took them: payload_window.hpp); post_payload_receive hands them out.
bool payloads_drained();
// A blocking receive of up to `capacity` bytes matched a split header from (source, tag) on
// `comm` while no other receive awaits a header and no payload is drained (so none of this pair
// can be ahead of it): receives the payload into `buf` at once, without a request. `st` is the
// payload's status, its MPI_ERROR set when the receive failed (a truncation, as PMPI_Wait's).
void receive_payload_now(void *buf, int capacity, CommArg comm, int source, int tag,
                         MPI_Status &st);

// A probe found a split header from (source, tag): the payload's size in bytes.
int64_t probed_payload_bytes(MPI_Comm comm, int source, int tag);

// MPI_Mprobe/MPI_Improbe matched a split header (`message`): receives the header and matches the
// payload instead; `message` becomes the payload's message, `st` counts its bytes.
void match_payload(CommArg comm, MPI_Message *message, MPI_Status &st);
// `message` is a split message whose payload came before its header was matched (a c3 handle,
// not MPICH's): delivers it into `r` (a receive of the payload) and completes r.
bool receive_drained(MPI_Message &message, Request &r);

// A receive whose header has not come yet may get a split header (a capacity above the bounce
// limit on a communicator with a bulk; any receive there once this rank asked a sender to split
// everything, payload_prepost.hpp): then only c3 can post its payload's receive, unless it was
// preposted. So while one that was not is pending, c3 never blocks inside MPICH on the
// program's behalf; it polls and runs progress() (a sender may be blocked until then), and
// before a call that blocks inside MPICH without c3 (a collective, a communicator creation) it
// stalls the possible senders (stall_senders).
// A table receive was posted; `early`: its header's receive is prepare_header_recv's and its
// payload's receive goes out now (prepost::eligible).
void header_stage_started(Request &r, bool early = false);
void header_stage_over(Request &r);     // its header came, or it ended otherwise
inline bool must_poll() { return prepost::unprepared() != 0; }
// Completes the receives whose header came, posting payload receives.
void complete_arrived_headers();
inline void progress() {
  if (must_poll()) complete_arrived_headers();
}
// Before a call that blocks inside MPICH while must_poll(): stalls every rank that may send a
// split header to a receive awaiting one, and takes every payload each announced before it saw
// the stall (payload_window.hpp); their later ones come from copies that need nobody.
void stall_senders();
// After that call: lifts the stalls.
void end_stall();
// PMPI_Wait that keeps progress() running when must_poll().
int wait(MPI_Request &request, MPI_Status &st);  // MPICH's result

// The nonblocking send of `mode` (MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend).
int isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          SendMode mode, MPI_Request *request);

// Blocking point-to-point calls on the program's behalf: their nonblocking forms and wait(),
// straight to MPICH while nothing must be polled.
int send_blocking(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  SendMode mode);
int recv_blocking(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Status &st);
void probe_blocking(int source, int tag, MPI_Comm comm, MPI_Status &st);
void mprobe_blocking(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status &st);

// Before a checkpoint's snapshot: every payload whose header arrived is received, so no message
// is half in the past.
void finish_pending_payloads();

// Split headers this rank sent whose requests it still keeps (reaped in batches; for tests).
size_t header_sends_kept();

void setup();     // after MPI_Init: the bulk communicator
void teardown();  // at MPI_Finalize

}  // namespace c3::mpi::split
