// What the protocol's files share: entering the layer, the epoch machinery, classifying received
// messages, logging and replaying non-deterministic outcomes, and the request table.
#pragma once
#include <mpi.h>

#include <string>

#include "piggyback.hpp"
#include "protocol_state.hpp"

namespace c3::mpi {

// Nesting of c3 wrappers: MPICH calls some MPI_ functions itself (those are not the program's).
extern int g_depth;
// Set while a checkpoint is in progress, in Restore, or while orphaned requests are active: the
// outermost Entry then takes the slow path.
extern bool g_attention;
// state().next_call when the outermost hook began: calls from here on belong to the hook running.
extern uint64_t g_hook_first_call;
void update_attention();
void enter_slow();  // polls control messages, advances modes, completes orphans
void leave_slow();  // ends Restore once the hook no longer uses the replay log

// Every hooked call opens one. Inline: in Run mode it costs an increment, a copy and two tests.
class Entry {
 public:
  Entry() : outermost_(g_depth++ == 0) {
    if (!outermost_) return;
    g_hook_first_call = state().next_call;
    if (g_attention) enter_slow();
  }
  ~Entry() {
    if (outermost_ && g_attention) leave_slow();
    --g_depth;
  }
  Entry(const Entry &) = delete;
  Entry &operator=(const Entry &) = delete;
  bool outermost() const { return outermost_; }

 private:
  bool outermost_;
};

// c3's own MPI calls outside any hook (the checkpoint snapshot) count as inside the layer too:
// a crash there is a peer's failure, not the program's (output::hold_on_crash_when).
class InsideLayer {
 public:
  InsideLayer() { ++g_depth; }
  ~InsideLayer() { --g_depth; }
  InsideLayer(const InsideLayer &) = delete;
  InsideLayer &operator=(const InsideLayer &) = delete;
};

[[noreturn]] void fatal(const std::string &message);
// An error every rank of MPI_COMM_WORLD has found alike (restart agreement): rank 0 reports it,
// all ranks finalize MPI and exit with status 2, so no abort races the message out of mpiexec.
[[noreturn]] void fatal_everywhere(const std::string &message);

// --- epochs (epochs.cpp)
void progress();                     // control messages, orphaned requests, mode changes
void poll_control();
bool logging_nondet();               // NonDet-Log: outcomes are logged
// The header of a message sent now.
inline int32_t outgoing_header() {
  return piggyback::make_header(state().epoch, state().mode == Mode::NonDetLog);
}
void enter_checkpoint();             // the epoch advances (at the state snapshot)
void send_checkpoint_initiated();    // after the state file is durable
void maybe_advance();                // NonDet-Log -> RecvOnly-Log -> commit
// NonDet-Log ends now, also in the middle of a hook (whose call is then not logged).
void end_nondet_log();
// In NonDet-Log, before a probe's match is logged: a sender that stopped logging may have sent
// it, and its All-Initiated, sent earlier, is then in.
void before_logging_probe();
void set_mode(Mode mode);
uint64_t checkpoint_number(uint64_t epoch);
void learn_global_commit(uint64_t number);
void finalize_protocol();            // MPI_Finalize: end or abandon a checkpoint, drain control
void setup_after_init(bool restarting);

// --- messages (message_registry.cpp)
int world_rank_of(MPI_Comm comm, int rank);
// Whether a receive for (wanted_source, wanted_tag) can take a message from (source, tag).
inline bool receive_may_take(int wanted_source, int wanted_tag, int source, int tag) {
  return (wanted_source == MPI_ANY_SOURCE || wanted_source == source) &&
         (wanted_tag == MPI_ANY_TAG || wanted_tag == tag);
}
// A message arrived for the receive with posting id `posting` (wildcard: the program used
// MPI_ANY_SOURCE or MPI_ANY_TAG). Returns whether the replay needs this receive's outcome (its
// match, a lost cancel): in NonDet-Log, and in RecvOnly-Log when the message was late or its
// sender still logged.
bool message_received(MPI_Comm comm, int source, int tag, int32_t header, const void *payload,
                      int64_t bytes, bool wildcard, uint64_t posting);
void count_sent(int world_dest);
// Restart: a send the peer received before its checkpoint is not sent again.
bool suppress_was_early(int world_dest, MPI_Comm comm, int tag);
// Restart: the first late message in the log matching (comm, source, tag); removes it.
bool take_late_message(MPI_Comm comm, int source, int tag, LateMessage &out);
const LateMessage *peek_late_message(MPI_Comm comm, int source, int tag);
// A probe (call number `call`, the program's source and tag) matched (comm, source, tag): in
// RecvOnly-Log a wildcard match is kept until a receive of it shows whether to log it.
void probe_matched(uint64_t call, MPI_Comm comm, int wanted_source, int wanted_tag, int source,
                   int tag);
// Restart: a wildcard probe's match logged in RecvOnly-Log; false if none.
bool logged_probe_match(uint64_t call, int &source, int &tag);

// --- non-determinism (nondet.cpp)
uint64_t next_call();
bool replaying(uint64_t call);        // the outcome of `call` comes from the log
const Outcome &replayed(uint64_t call);
void log_outcome(uint64_t call, int flag, const std::vector<int> &indices = {}, int source = 0,
                 int tag = 0, int64_t bytes = 0);
void maybe_end_restore();

// --- requests (requests.cpp)
bool is_c3_request(MPI_Request handle);
// c3 request handles: MPICH's request object type in bits 29-26, kind bits 00, index + 1 below.
constexpr uint32_t kRequestType = 0xbu << 26;
constexpr uint32_t kIndexMask = (1u << 25) - 1;
[[noreturn]] void invalid_request(MPI_Request handle);
// The request behind a c3 handle; fatal on a foreign or stale handle.
inline Request &request_of(MPI_Request handle) {
  const uint32_t h = uint32_t(handle), index = h & kIndexMask;
  auto &table = state().requests;
  if ((h & ~kIndexMask) == kRequestType && index - 1 < table.size()) {  // index 0 wraps around
    Request &r = table[index - 1];
    if (r.kind != Request::Kind::Free) return r;
  }
  invalid_request(handle);
}
MPI_Request new_request(Request::Kind kind, Request **out);
void free_request(MPI_Request &handle);
// MPI_Request_free of an active request: it completes inside c3 later.
void orphan_request(MPI_Request &handle);
int start_send(Request &r);       // posts an active send request
int start_recv(Request &r);       // posts (or serves from the log) an active receive request
// The MPICH request behind `r` completed with `st` (its real handle is spent).
// A split header leaves `r` waiting for its payload (r.done false, r.real the payload's receive).
void complete_real_request(Request &r, MPI_Status &st);
// Same, then waits for the payload if a split header came.
void finish_blocking(Request &r, MPI_Status &st);
// A receive with posting id `posting` got a message from (source, tag) on `comm` while this rank
// logs matches. Every wildcard receive posted before it that could have taken that message has a
// message already (MPI matches in posting order): it is completed now, so its match is logged
// first. Else a later receive could be pinned at restart while an earlier one, completed after
// the log ended, stays free and takes the pinned receive's message.
void settle_earlier_wildcards(MPI_Comm comm, uint64_t posting, int source, int tag);
// MPI_Cancel of `r`: replays the logged run's outcome in Restore.
int cancel_request(Request &r);
bool test_request(Request &r);    // true when complete (r.done)
void wait_request(Request &r);
// Hands a completed request's status to the program; frees non-persistent ones.
void deliver(MPI_Request &handle, MPI_Status *status);
void repost_after_restart();
// The table was replaced by a restored one.
void requests_restored();
// MPI_Mrecv / MPI_Imrecv (request != nullptr) of a message matched by a probe.
int receive_matched(void *buf, int count, MPI_Datatype type, MPI_Message *message,
                    MPI_Request *request, MPI_Status *status);
// Completes orphaned requests that are done; `block`: waits for the sends among them.
void complete_orphans(bool block);
void make_status(MPI_Status &st, int source, int tag, int64_t bytes);

}  // namespace c3::mpi
