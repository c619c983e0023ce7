// The request indirection table: the program holds c3 request handles, so the same values stay
// valid after a restart; the MPICH request behind an entry is posted again (or served from the
// log) at restart.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "handles/handle_args.hpp"
#include "layer/layer.hpp"
#include "messages/piggyback.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi {

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
// Free slots of the table, lowest last; each was reset when it was freed.
extern std::vector<size_t> g_free_slots;
// A free slot the small-message lane gave back (hooks/fast_paths.hpp): the fields that lane
// writes hold its last request's values, all others are a reset entry's. Kept with its entry's
// address, so taking one costs no table lookup (a restored table's entries live elsewhere:
// requests_restored drops these).
struct SmallSlot {
  Request *entry = nullptr;
  MPI_Request handle = MPI_REQUEST_NULL;
};
// Those slots as a stack whose push and pop stay inline (growing is out of line and rare).
class SmallSlots {
 public:
  bool empty() const { return top_ == 0; }
  size_t size() const { return top_; }
  void clear() { top_ = 0; }
  [[gnu::always_inline]] SmallSlot pop() { return data_[--top_]; }
  [[gnu::always_inline]] void push(Request *entry, MPI_Request handle) {
    if (top_ == capacity_) grow();
    data_[top_].entry = entry;
    data_[top_].handle = handle;
    ++top_;
  }

 private:
  void grow();
  std::vector<SmallSlot> storage_;
  SmallSlot *data_ = nullptr;  // storage_'s, with its size: no vector arithmetic per call
  size_t top_ = 0, capacity_ = 0;
};
extern SmallSlots g_small_slots;
// Entries in use by the small-message lane (Request::small set): their MPICH request reads or
// writes only the entry's own bounce, never the program's memory, so they need not stop a
// blocking call from lending bytes next to its buffer (borrowed_header.hpp). Every entry
// enters the lane by mark_lane and leaves it by leave_lane (release_small_slot calls it).
extern size_t g_lane_in_use;
// Slots the lane took or gave back so far (with layer.hpp's g_entries: whether a lane entry can
// have changed since a wrapper last looked at it).
extern uint64_t g_lane_changes;
[[gnu::always_inline]] inline void mark_lane(Request &r) {
  r.small = true;
  ++g_lane_in_use;
}
// Before an entry is reset, or once its MPICH request may write the program's memory (a split
// message's payload).
inline void leave_lane(Request &r) {
  if (!r.small) return;
  r.small = false;
  --g_lane_in_use;
}
// Ends the job if g_lane_in_use is not the number of the table's lane entries: a count too high
// would let a live request of another kind pass for the lane's. Debug builds (the sanitizer
// configuration's tests) check it on every decision that relies on it; it scans the table.
void check_lane_count();
// A free entry when g_free_slots has none: a small-lane slot reset, or a new one.
MPI_Request new_request_elsewhere(Request::Kind kind, Request **out);
[[gnu::always_inline]] inline MPI_Request request_handle(size_t index) { return MPI_Request(kRequestType | uint32_t(index + 1)); }
// A free entry of the table for a new request (inline: every nonblocking call makes one).
[[gnu::always_inline]] inline MPI_Request new_request(Request::Kind kind, Request **out) {
  if (g_free_slots.empty()) return new_request_elsewhere(kind, out);
  const size_t index = g_free_slots.back();  // reset when it was freed
  g_free_slots.pop_back();
  Request &r = state().requests[index];
  r.kind = kind;
  *out = &r;
  return request_handle(index);
}
// An entry for the small-message lane, which sets every field it uses.
[[gnu::always_inline]] inline MPI_Request take_small_slot(Request::Kind kind, Request **out) {
  ++g_lane_changes;
  if (g_small_slots.empty()) return new_request(kind, out);
  const SmallSlot slot = g_small_slots.pop();
  slot.entry->kind = kind;
  *out = slot.entry;
  return slot.handle;
}
// Gives a finished small-lane entry back: only what marks it free and idle is reset, and a
// bounce buffer above the 64 bytes a slot keeps goes back to the spares.
[[gnu::always_inline]] inline void release_small_slot(Request &r, MPI_Request &handle) {
  if (r.bounce.capacity() > BounceBuffer::kSmallCapacity) piggyback::return_bounce(r.bounce);
  r.kind = Request::Kind::Free;
  r.active = false;
  leave_lane(r);
  r.real = MPI_REQUEST_NULL;
  ++g_lane_changes;
  g_small_slots.push(&r, handle);
  handle = MPI_REQUEST_NULL;
}
// An active request's message, as the call gave it (the program's handles and MPICH's).
[[gnu::always_inline]] inline void describe_message(Request &r, const void *buf, int count,
                                                    MPI_Datatype type, MPI_Datatype rtype,
                                                    int peer, int tag, MPI_Comm comm,
                                                    MPI_Comm rcomm) {
  r.active = true;
  r.buf = reinterpret_cast<uintptr_t>(buf);
  r.count = count;
  r.type = type;
  r.rtype = rtype;
  r.peer = peer;
  r.tag = tag;
  r.comm = comm;
  r.rcomm = rcomm;
}
// An empty record for a nonblocking collective's request (one a freed request left, if any).
std::shared_ptr<CollectiveRecord> new_collective_record();
void free_request(MPI_Request &handle);
// MPI_Request_free of an active request: it completes inside c3 later.
void orphan_request(MPI_Request &handle);
int start_send(Request &r);       // posts an active send request
int start_recv(Request &r);       // posts (or serves from the log) an active receive request
int start_native(Request &r);     // MPI_Start of a persistent request of a call c3 does not hook
// The MPICH request behind `r` completed with `st` (its real handle is spent).
// A split header leaves `r` waiting for its payload (r.done false, r.real the payload's receive).
void complete_real_request(Request &r, MPI_Status &st);
// Same, then waits for the payload if a split header came.
void finish_blocking(Request &r, MPI_Status &st);
// A receive with posting id `posting` got a message from (source, tag) on `comm` while this rank
// logs matches. Every receive posted before it that could have taken that message has a message
// already (MPI matches in posting order): it is completed now, so its match and its message, if
// late, are logged first. Else a later receive could be pinned at restart while an earlier
// wildcard one, completed after the log ended, stays free and takes the pinned receive's
// message; and late messages of one (source, tag), which a restart hands out in log order, would
// be logged out of their order when the program (or a split payload, which completes after its
// header) finishes a later receive first.
void settle_earlier_matches(MPI_Comm comm, uint64_t posting, int source, int tag);
// MPI_Cancel of `r`: replays the logged run's outcome in Restore.
int cancel_request(Request &r);
bool test_request(Request &r);    // true when complete (r.done)

// Several of the program's requests completed together, in as few MPICH calls as possible
// (MPI_Waitall, MPI_Testall, MPI_Testsome, ...): one pass of PMPI_Testsome or PMPI_Waitall over
// their MPICH requests instead of a call per request, each of which would run MPICH's progress.
// Its arrays are kept between calls (no allocation per call).
struct RequestBatch {
  std::vector<Request *> pending, arrived;
  std::vector<MPI_Request> reals;
  std::vector<int> indices;
  std::vector<MPI_Status> statuses;
  // wait_all_small's arrays when MPI_Waitall's hook calls it (it hands over into those above).
  std::vector<Request *> small_reqs;
  std::vector<MPI_Request> small_reals;
  std::vector<MPI_Status> small_reported;
  std::vector<int> small_arrived;
  std::vector<MPI_Status> small_round;
  size_t awaiting_here = 0;  // pending receives that may get a split header

  // The active, not yet complete requests among `handles` (MPI_REQUEST_NULL skipped).
  void gather(int count, const MPI_Request handles[]);
  // Drops the complete ones; fills reals/indices/statuses for the rest that have an MPICH
  // request. False when none is left to complete.
  bool collect_reals();
  // MPICH reported `done` of `reals` complete (indices[0..done), or all `done` of them in order
  // after a PMPI_Waitall): completes them in posting order (split::settle_earlier_receives
  // looks back). A split header leaves its request waiting for the payload.
  void complete_reported(int done);
  // After PMPI_Waitall over all of reals (indices 0..n-1) returned `rc`: completes what MPICH
  // completed.
  void complete_waitall(int rc);
  // One PMPI_Testsome over the pending requests; a split header's payload is tested once more,
  // as test_request does.
  void test_once();
  // After collect_reals: one round of waiting for some of them. Blocks in MPICH unless a receive
  // outside this batch may need c3 to post a payload (split::must_poll), then tests once and
  // lets c3 progress.
  void wait_some();
};
// The batch of the current nesting level of the layer (its arrays are reused).
RequestBatch &request_batch();
void wait_request(Request &r);
// Hands a completed request's status to the program; frees non-persistent ones.
void deliver(MPI_Request &handle, MPI_Status *status);
void repost_after_restart();
// The table was replaced by a restored one.
void requests_restored();
// MPI_Mrecv / MPI_Imrecv (request != nullptr) of a message matched by a probe.
int receive_matched(void *buf, int count, TypeArg type, MPI_Message *message,
                    MPI_Request *request, MPI_Status *status);
// Completes orphaned requests that are done; `block`: waits for the sends among them.
void complete_orphans(bool block);
void make_status(MPI_Status &st, int source, int tag, int64_t bytes);
// Hands a status to the program: its MPI_ERROR field is left alone unless `st` reports an error
// (MPI sets it only then; a single-completion call never does).
void copy_status_out(MPI_Status *to, const MPI_Status &st);
// The status of a completed request as MPICH gives it (of a send: only the cancelled flag).
void copy_request_status_out(const Request &r, MPI_Status *to);
// MPICH sets only the cancelled flag of a send's status.
inline void set_send_status(MPI_Status &to, const MPI_Status &st) {
  to.count_hi_and_cancelled = (to.count_hi_and_cancelled & ~1) | (st.count_hi_and_cancelled & 1);
}
// MPI_Waitall (MPICH) sets MPI_ERROR of every status it fills, of sends too: to the request's
// error, MPI_SUCCESS for most.
inline void waitall_status_error(MPI_Status *to, const MPI_Status &st) {
  if (to != MPI_STATUS_IGNORE) to->MPI_ERROR = st.MPI_ERROR;
}
// The status of a receive from MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0.
void proc_null_status(MPI_Status *status);
// The status of a call that finds no active request: source MPI_ANY_SOURCE, tag MPI_ANY_TAG,
// count 0, MPI_ERROR left alone (nothing for MPI_STATUS_IGNORE).
void empty_status(MPI_Status *status);
// Whether a program's request handle names an active request (MPI_REQUEST_NULL does not).
bool request_active(MPI_Request h);
// Entry i of a status array, or MPI_STATUS_IGNORE for MPI_STATUSES_IGNORE.
inline MPI_Status *status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}
MPI_Request adopt_request(MPI_Request real, bool persistent);

}  // namespace c3::mpi
