// The request indirection table. The program holds c3 handles (kind bits 00, object type
// REQUEST, index below), so the same values name the same requests after a restart; the
// MPICH request behind an entry is posted again (or served from the log) at restart.
#include "messages/requests.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "collectives/collective_call.hpp"
#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/mpich_status.hpp"
#include "messages/payload_prepost.hpp"
#include "messages/piggyback.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {
namespace {

std::vector<size_t> g_orphans;  // freed by the program while still active

// A cancel that lost the race is as non-deterministic as one that won: logged when the
// replay needs the receive's outcome (message_received says).
void log_failed_cancel(const Request &r, bool replay_needs) {
  if (r.cancel_asked && replay_needs) state().log.cancelled[r.posting] = 0;
}

}  // namespace

void settle_earlier_matches(MPI_Comm comm, uint64_t posting, int source, int tag) {
  const Mode mode = state().mode;
  if (mode != Mode::NonDetLog && mode != Mode::RecvOnlyLog) return;
  std::vector<Request *> earlier;
  for (Request &q : state().requests)
    if (q.kind == Request::Kind::Recv && q.active && !q.done && q.posting < posting &&
        q.comm == comm && receive_may_take(q.effective_source, q.effective_tag, source, tag) &&
        q.real != MPI_REQUEST_NULL)
      earlier.push_back(&q);
  std::sort(earlier.begin(), earlier.end(),
            [](const Request *a, const Request *b) { return a->posting < b->posting; });
  for (Request *q : earlier) wait_request(*q);
}

int cancel_request(Request &r) {
  if (r.kind == Request::Kind::Native) return PMPI_Cancel(&r.native);
  if (!r.active || r.done || r.kind == Request::Kind::Collective) return MPI_SUCCESS;
  leave_lane(r);  // a cancelled one completes through the general path
  if (r.replay_cancel) {
    MPI_Status st{};
    make_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    PMPI_Status_set_cancelled(&st, 1);
    std::memcpy(r.status.words, &st, sizeof st);
    r.done = true;
    return MPI_SUCCESS;
  }
  // A split message's header went out or was matched: like a matched receive, it completes.
  if (r.payload_pending || r.split_send) return MPI_SUCCESS;
  if (r.replay_keep) return MPI_SUCCESS;  // the logged run's cancel failed
  if (r.kind == Request::Kind::Recv) r.cancel_asked = true;
  if (r.preposted) return prepost::cancel(r);
  return r.real == MPI_REQUEST_NULL ? MPI_SUCCESS : PMPI_Cancel(&r.real);
}

void complete_real_request(Request &r, MPI_Status &st) {
  r.real = MPI_REQUEST_NULL;
  if (r.kind == Request::Kind::Collective) {
    coll::complete_request(r, st);
    return;
  }
  if (r.kind == Request::Kind::Native) {
    std::memcpy(r.status.words, &st, sizeof st);
    r.done = true;
    return;
  }
  split::header_stage_over(r);
  if (r.kind == Request::Kind::Recv) {
    const bool wildcard = r.peer == MPI_ANY_SOURCE || r.tag == MPI_ANY_TAG;
    // Before an inline payload is copied into the buffer the early payload receive shares.
    if (r.preposted && (st.MPI_ERROR != MPI_SUCCESS || status_cancelled(st) ||
                        status_bytes(st) != piggyback::kSplitHeaderBytes))
      prepost::withdraw(r);
    if (r.payload_pending) {
      // The payload of a split message: `st` is already what the program gets.
      r.payload_pending = false;
      if (intra_epoch_in_run_mode(r.split_header)) {  // as an inline message's below
        ++state().received[state().epoch & 3][size_t(world_rank_of(r.comm, st.MPI_SOURCE))];
      } else {
        settle_earlier_matches(r.comm, r.posting, st.MPI_SOURCE, st.MPI_TAG);
        log_failed_cancel(r, message_received(r.comm, st.MPI_SOURCE, st.MPI_TAG, r.split_header,
                                              reinterpret_cast<const void *>(r.buf), r.rtype,
                                              status_bytes(st), wildcard, r.posting));
      }
    } else if (status_cancelled(st)) {
      if (state().mode == Mode::NonDetLog) state().log.cancelled[r.posting] = 1;
    } else if (st.MPI_ERROR != MPI_SUCCESS) {
      message_failed(st.MPI_ERROR);  // nothing arrived: no header to read
    } else if (st.MPI_SOURCE != MPI_PROC_NULL) {
      int32_t header = 0;
      switch (piggyback::finish_recv(r, st, header)) {
        case piggyback::Arrival::NoHeader:
          piggyback::headerless_arrival(st);
        case piggyback::Arrival::SplitHeader:
          piggyback::release(r);
          split::post_payload_receive(r, st.MPI_SOURCE, st.MPI_TAG, header);
          return;  // completes with its payload
        case piggyback::Arrival::Payload:
          if (intra_epoch_in_run_mode(header)) {  // nothing to log or classify: counted
            ++state().received[state().epoch & 3][size_t(world_rank_of(r.comm, st.MPI_SOURCE))];
            break;
          }
          settle_earlier_matches(r.comm, r.posting, st.MPI_SOURCE, st.MPI_TAG);
          log_failed_cancel(r, message_received(r.comm, st.MPI_SOURCE, st.MPI_TAG, header,
                                                reinterpret_cast<const void *>(r.buf), r.rtype,
                                                status_bytes(st), wildcard, r.posting));
          break;
      }
    }
  } else {
    if (st.MPI_ERROR != MPI_SUCCESS) message_failed(st.MPI_ERROR);
    if (status_cancelled(st) && r.peer != MPI_PROC_NULL) --state().sent[size_t(world_rank_of(r.comm, r.peer))];
  }
  piggyback::release(r);
  std::memcpy(r.status.words, &st, sizeof st);
  r.done = true;
}

void finish_blocking(Request &r, MPI_Status &st) {
  complete_real_request(r, st);
  wait_request(r);
  std::memcpy(&st, r.status.words, sizeof st);
}

void make_status(MPI_Status &st, int source, int tag, int64_t bytes) {
  std::memset(&st, 0, sizeof st);
  st.MPI_SOURCE = source;
  st.MPI_TAG = tag;
  st.MPI_ERROR = MPI_SUCCESS;
  set_status_bytes(st, bytes);
}

MPI_Request adopt_request(MPI_Request real, bool persistent) {
  if (real == MPI_REQUEST_NULL) return real;
  Request *r = nullptr;
  const MPI_Request h = new_request(Request::Kind::Native, &r);
  r->native = real;
  r->persistent = persistent;
  r->active = !persistent;  // a persistent one is inactive until MPI_Start
  r->real = persistent ? MPI_REQUEST_NULL : real;
  return h;
}

MPI_Request real_request(MPI_Request h) {
  if (!is_c3_request(h)) return h;
  const Request &r = request_of(h);
  return r.kind == Request::Kind::Native ? r.native : r.real;
}

bool is_c3_request(MPI_Request handle) {
  uint32_t h = uint32_t(handle);
  return (h & ~kIndexMask) == kRequestType && (h & kIndexMask) != 0;
}

void invalid_request(MPI_Request handle) {
  fatal("invalid MPI_Request " + std::to_string(handle) +
        " (not a live request; was it freed or never created?)");
}

std::vector<size_t> g_free_slots;
size_t g_lane_in_use = 0;
uint64_t g_lane_changes = 0;
SmallSlots g_small_slots;

void SmallSlots::grow() {
  storage_.resize(storage_.size() * 2 + 64);
  data_ = storage_.data();
  capacity_ = storage_.size();
}

void requests_restored() {
  auto &table = state().requests;
  rt().awaiting.clear();  // reposted receives count again
  prepost::awaiting_cleared();
  g_free_slots.clear();
  g_small_slots.clear();
  g_lane_in_use = 0;  // a restored entry is not the lane's (`small` is not saved)
  for (size_t i = table.size(); i-- > 0;) {
    Request &r = table[i];
    if (r.kind == Request::Kind::Free) {
      r.reset();  // free slots are kept reset (new_request relies on it)
      g_free_slots.push_back(i);
      continue;
    }
    // The handles were built again (handles/recreate.cpp); a zombie communicator has its own.
    r.rcomm = handles().comms.find(r.comm) ? handles().comms.slot_real(r.comm) : r.comm;
    r.rtype = handles().types.find(r.type) ? handles().types.slot_real(r.type) : r.type;
    if (r.coll)
      for (Region &region : r.coll->outputs) region.real = handles().types.slot_real(region.type);
  }
}

// The datatypes a request held since it was made (handles.hpp: hold_datatype). A built-in
// type (kind bits 01) is never held: no table lookup for the common case.
inline void release_held_datatypes(Request &r) {
  if ((r.kind == Request::Kind::Send || r.kind == Request::Kind::Recv) && (uint32_t(r.type) >> 30) != 1)
    release_datatype(r.type);
  if (r.kind == Request::Kind::Collective && r.coll)
    for (const Region &region : r.coll->outputs) release_datatype(region.type);
}

void check_lane_count() {
  const auto &table = state().requests;
  size_t lane = 0;
  for (size_t i = 0; i < table.size(); ++i)
    lane += table[i].small && table[i].kind != Request::Kind::Free;
  if (lane != g_lane_in_use)
    fatal("internal error: " + std::to_string(g_lane_in_use) + " requests counted in the lane, " +
          std::to_string(lane) + " in the table");
}

MPI_Request new_request_elsewhere(Request::Kind kind, Request **out) {
  auto &table = state().requests;
  if (!g_small_slots.empty()) {
    const SmallSlot slot = g_small_slots.pop();
    slot.entry->reset();
    slot.entry->kind = kind;
    *out = slot.entry;
    return slot.handle;
  }
  if (table.size() >= kIndexMask) fatal("too many live MPI requests");
  const size_t index = table.size();
  table.emplace_back().kind = kind;
  *out = &table[index];
  return request_handle(index);
}

namespace {

// Records of finished nonblocking collectives nobody else holds, kept for the next ones (with
// their outputs' capacity): MPI_Iallreduce + MPI_Wait of 8 bytes paid two allocations and two
// frees for a new record every time.
std::vector<std::shared_ptr<CollectiveRecord>> g_spare_records;
constexpr size_t kSpareRecords = 16;

void keep_record(Request &r) {
  if (!r.coll || r.coll.use_count() != 1 || g_spare_records.size() >= kSpareRecords) return;
  CollectiveRecord &c = *r.coll;
  c.outputs.clear();
  std::vector<Region> keep = std::move(c.outputs);
  c = CollectiveRecord{};
  c.outputs = std::move(keep);
  g_spare_records.push_back(std::move(r.coll));
}

}  // namespace

std::shared_ptr<CollectiveRecord> new_collective_record() {
  if (g_spare_records.empty()) return std::make_shared<CollectiveRecord>();
  std::shared_ptr<CollectiveRecord> c = std::move(g_spare_records.back());
  g_spare_records.pop_back();
  return c;
}

void free_request(MPI_Request &handle) {
  Request &r = request_of(handle);
  if (r.kind == Request::Kind::Native && r.persistent && r.native != MPI_REQUEST_NULL)
    PMPI_Request_free(&r.native);
  // The calls below do nothing for the common small message; they are skipped inline then.
  if (r.awaits_header) split::header_stage_over(r);
  if (r.wire != MPI_DATATYPE_NULL || r.bounce.capacity() > BounceBuffer::kSmallCapacity)
    piggyback::release(r);
  release_held_datatypes(r);
  if (r.coll) keep_record(r);
  leave_lane(r);
  r.reset();
  g_free_slots.push_back((uint32_t(handle) & kIndexMask) - 1);
  handle = MPI_REQUEST_NULL;
}

int start_native(Request &r) {
  r.active = true;
  r.done = false;
  const int rc = PMPI_Start(&r.native);
  r.real = r.native;
  return rc;
}

// MPICH's handles of a request made without them (a unit test's, or one built by hand).
void resolve_handles(Request &r) {
  if (r.rcomm == MPI_COMM_NULL) r.rcomm = real_comm(r.comm);
  if (r.rtype == MPI_DATATYPE_NULL) r.rtype = real_type(r.type);
}

int start_send(Request &r) {
  resolve_handles(r);
  r.active = true;
  r.done = false;
  r.split_send = false;
  const MPI_Comm comm = r.rcomm;
  if (r.peer == MPI_PROC_NULL) {
    MPI_Status st{};
    make_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    std::memcpy(r.status.words, &st, sizeof st);
    r.done = true;
    return MPI_SUCCESS;
  }
  const int dest = world_rank_of(r.comm, r.peer);
  count_sent(dest);
  if (suppress_was_early(dest, r.comm, r.tag)) {  // the receiver has it already
    MPI_Status st{};
    make_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    std::memcpy(r.status.words, &st, sizeof st);
    r.done = true;
    return MPI_SUCCESS;
  }
  const bool split = split::sends_split(r.comm, dest, r.count, r.rtype);
  if (r.send_mode == SendMode::Buffered && (split || piggyback::contiguous(r.rtype))) {
    // c3 buffers it: the payload is copied now and sent by an inner request that completes in
    // the background; the program's request is complete at once, as MPI_Bsend's is.
    Request *inner = nullptr;
    MPI_Request ih = new_request(Request::Kind::Send, &inner);
    *inner = r;
    hold_datatype(inner->type);  // the copy is freed on its own
    inner->kind = Request::Kind::Send;
    inner->persistent = false;
    inner->send_mode = SendMode::Standard;
    int rc = MPI_SUCCESS;
    if (split) {
      // Packed, so the copy matches a receive of any type with the program's signature.
      int room = 0, used = 0;
      PMPI_Pack_size(r.count, r.rtype, comm, &room);
      inner->bounce.resize(size_t(room));
      PMPI_Pack(reinterpret_cast<const void *>(r.buf), r.count, r.rtype, inner->bounce.data(),
                room, &used, comm);
      inner->split_send = true;
      rc = split::send(inner->bounce.data(), used, MPI_PACKED, r.peer, r.tag, CommArg{r.comm, comm},
                       SendMode::Standard, outgoing_header(), &inner->real);
    } else {
      piggyback::Wire w = piggyback::prepare_send(*inner, reinterpret_cast<const void *>(r.buf),
                                                  r.count, r.rtype, outgoing_header(), true);
      rc = PMPI_Isend(w.buf, w.count, w.type, r.peer, r.tag, comm, &inner->real);
    }
    orphan_request(ih);
    MPI_Status st{};
    make_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    std::memcpy(r.status.words, &st, sizeof st);
    r.done = true;
    return rc;
  }
  if (split) {
    r.split_send = true;
    return split::send(reinterpret_cast<const void *>(r.buf), r.count, r.rtype, r.peer, r.tag,
                       CommArg{r.comm, comm}, r.send_mode, outgoing_header(), &r.real);
  }
  piggyback::Wire w = piggyback::prepare_send(r, reinterpret_cast<const void *>(r.buf), r.count,
                                              r.rtype, outgoing_header());
  return split::isend(w.buf, w.count, w.type, r.peer, r.tag, comm, r.send_mode, &r.real);
}

int start_recv(Request &r) {
  resolve_handles(r);
  ProtocolState &st = state();
  r.active = true;
  r.done = false;
  r.replay_cancel = false;
  r.replay_keep = false;
  r.cancel_asked = false;
  r.payload_pending = false;
  r.posting = st.next_posting++;
  r.effective_source = r.peer;
  r.effective_tag = r.tag;
  if (r.peer == MPI_PROC_NULL) {
    MPI_Status s;
    make_status(s, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    std::memcpy(r.status.words, &s, sizeof s);
    r.done = true;
    return MPI_SUCCESS;
  }
  if (st.mode == Mode::Restore) {
    auto res = st.replay.resolutions.find(r.posting);
    if (res != st.replay.resolutions.end()) {
      r.effective_source = res->second.source;
      r.effective_tag = res->second.tag;
    }
    auto cancel = st.replay.cancelled.find(r.posting);
    if (cancel != st.replay.cancelled.end() && cancel->second) {
      r.replay_cancel = true;  // nothing matched it in the logged run: post nothing
      return MPI_SUCCESS;
    }
    // A cancel that failed in the logged run fails again: the receive gets its message.
    r.replay_keep = cancel != st.replay.cancelled.end();
    LateMessage m;
    if (take_late_message(r.comm, r.effective_source, r.effective_tag, m)) {
      MPI_Status s;
      deliver_late_message(m, reinterpret_cast<void *>(r.buf), r.count, r.rtype, s);
      std::memcpy(r.status.words, &s, sizeof s);
      r.done = true;
      return MPI_SUCCESS;
    }
  }
  const bool early = prepost::eligible(r);
  piggyback::Wire w =
      early ? piggyback::prepare_header_recv(r, reinterpret_cast<void *>(r.buf))
            : piggyback::prepare_recv(r, reinterpret_cast<void *>(r.buf), r.count, r.rtype,
                                      split::splits_large(r.comm));
  int rc = PMPI_Irecv(const_cast<void *>(w.buf), w.count, w.type, r.effective_source,
                      r.effective_tag, r.rcomm, &r.real);
  if (rc == MPI_SUCCESS) split::header_stage_started(r, early);
  return rc;
}

bool test_request(Request &r) {
  if (r.done || !r.active) return r.done;
  if (r.real == MPI_REQUEST_NULL) return false;  // a receive waiting for its replayed cancel
  int flag = 0;
  MPI_Status st{};
  // A single-request call returns an error instead of writing it into the status.
  if (int rc = PMPI_Test(&r.real, &flag, &st); rc != MPI_SUCCESS) st.MPI_ERROR = rc;
  if (flag) complete_real_request(r, st);
  if (flag && !r.done) {  // a split header: its payload may be in already
    if (int rc = PMPI_Test(&r.real, &flag, &st); rc != MPI_SUCCESS) st.MPI_ERROR = rc;
    if (flag) complete_real_request(r, st);
  }
  return r.done;
}

void RequestBatch::gather(int count, const MPI_Request handles[]) {
  pending.clear();
  for (int i = 0; i < count; ++i)
    if (handles[i] != MPI_REQUEST_NULL) {
      Request &r = request_of(handles[i]);
      if (r.active && !r.done) pending.push_back(&r);
    }
}

bool RequestBatch::collect_reals() {
  reals.clear();
  awaiting_here = 0;
  size_t keep = 0;
  for (Request *r : pending) {
    // Complete ones leave, and so does a receive waiting for its replayed cancel (no request).
    if (r->done || r->real == MPI_REQUEST_NULL) continue;
    pending[keep++] = r;
    reals.push_back(r->real);
    awaiting_here += r->awaits_header;
  }
  pending.resize(keep);
  indices.resize(reals.size());
  statuses.resize(reals.size());
  for (size_t k = 0; k < reals.size(); ++k) {
    indices[k] = int(k);
    statuses[k].MPI_ERROR = MPI_SUCCESS;  // MPICH sets it only on an error (but MPI_Waitall)
  }
  return !reals.empty();
}

void RequestBatch::complete_reported(int done) {
  if (done == MPI_UNDEFINED || done <= 0) return;
  arrived.clear();
  for (int k = 0; k < done; ++k) {
    Request *r = pending[size_t(indices[size_t(k)])];
    r->real = MPI_REQUEST_NULL;  // MPICH freed every one it reported
    std::memcpy(r->status.words, &statuses[size_t(k)], sizeof(MPI_Status));
    arrived.push_back(r);
  }
  auto by_posting = [](const Request *a, const Request *b) { return a->posting < b->posting; };
  if (!std::is_sorted(arrived.begin(), arrived.end(), by_posting))
    std::sort(arrived.begin(), arrived.end(), by_posting);
  for (Request *r : arrived) {
    MPI_Status st;
    std::memcpy(&st, r->status.words, sizeof st);
    complete_real_request(*r, st);
  }
}

void RequestBatch::complete_waitall(int rc) {
  const int n = int(reals.size());
  if (rc == MPI_SUCCESS) {
    complete_reported(n);
    return;
  }
  // MPI_ERR_IN_STATUS: MPICH completed those whose status is not MPI_ERR_PENDING (a truncated
  // payload of a split message among them); the pending ones keep their MPICH request.
  int done = 0;
  for (int k = 0; k < n; ++k)
    if (statuses[size_t(k)].MPI_ERROR != MPI_ERR_PENDING) {
      statuses[size_t(done)] = statuses[size_t(k)];
      indices[size_t(done++)] = k;
    }
  complete_reported(done);
}

void RequestBatch::test_once() {
  if (!collect_reals()) return;
  int done = 0;
  PMPI_Testsome(int(reals.size()), reals.data(), &done, indices.data(), statuses.data());
  complete_reported(done);
  for (Request *r : arrived)
    if (!r->done) test_request(*r);  // a split header: its payload may be in already
}

void RequestBatch::wait_some() {
  const int n = int(reals.size());
  int done = 0;
  if (split::must_poll() && awaiting_here < rt().awaiting.size()) {
    PMPI_Testsome(n, reals.data(), &done, indices.data(), statuses.data());
    if (done == 0) split::progress();
  } else {
    PMPI_Waitsome(n, reals.data(), &done, indices.data(), statuses.data());
  }
  complete_reported(done);
}

RequestBatch &request_batch() {
  // One per nesting level of the layer: a callback MPICH runs inside a batch's MPICH call (a
  // user-defined operator, a generalized request's query) may call MPI_Testall itself.
  static std::vector<std::unique_ptr<RequestBatch>> batches;
  const size_t level = size_t(std::max(g_depth, 0));
  while (batches.size() <= level) batches.push_back(std::make_unique<RequestBatch>());
  return *batches[level];
}

void wait_request(Request &r) {
  // r's state is read again each round: split::progress() may complete it meanwhile.
  while (r.active && !r.done) {
    if (r.real == MPI_REQUEST_NULL)
      fatal("restart diverged: waiting for a receive the logged run cancelled");
    MPI_Status st{};
    if (!split::must_poll()) {
      if (int rc = PMPI_Wait(&r.real, &st); rc != MPI_SUCCESS) st.MPI_ERROR = rc;
      complete_real_request(r, st);
      continue;
    }
    int flag = 0;
    if (int rc = PMPI_Test(&r.real, &flag, &st); rc != MPI_SUCCESS) st.MPI_ERROR = rc;
    if (flag)
      complete_real_request(r, st);
    else
      split::progress();
  }
}

void empty_status(MPI_Status *status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;  // MPI_ERROR stays, as MPICH leaves it
  status->MPI_TAG = MPI_ANY_TAG;
  status->count_lo = 0;
  status->count_hi_and_cancelled = 0;
}

bool request_active(MPI_Request h) { return h != MPI_REQUEST_NULL && request_of(h).active; }

void proc_null_status(MPI_Status *status) {
  MPI_Status st{};
  make_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
  copy_status_out(status, st);
}

void copy_status_out(MPI_Status *to, const MPI_Status &st) {
  if (to == MPI_STATUS_IGNORE) return;
  const int error = to->MPI_ERROR;
  *to = st;
  if (st.MPI_ERROR == MPI_SUCCESS) to->MPI_ERROR = error;
}

void copy_request_status_out(const Request &r, MPI_Status *to) {
  MPI_Status st{};
  std::memcpy(&st, r.status.words, sizeof st);
  if (r.kind == Request::Kind::Send && to != MPI_STATUS_IGNORE) {
    set_send_status(*to, st);
    return;
  }
  copy_status_out(to, st);
}

void deliver(MPI_Request &handle, MPI_Status *status) {
  Request &r = request_of(handle);
  copy_request_status_out(r, status);
  r.active = false;
  r.done = false;
  if (!r.persistent) free_request(handle);
}

void complete_orphans(bool block) {
  if (g_orphans.empty()) {
    rt().has_orphans = false;
    update_attention();
    return;
  }
  auto &table = state().requests;
  for (size_t i = 0; i < g_orphans.size();) {
    Request &r = table[g_orphans[i]];
    // Sends finish (their receivers take them); a freed receive nobody sends to never would.
    if (block && r.kind == Request::Kind::Send) wait_request(r);
    if (test_request(r) || !r.active) {
      piggyback::release(r);
      release_held_datatypes(r);
      leave_lane(r);
      r.reset();
      g_free_slots.push_back(g_orphans[i]);
      g_orphans.erase(g_orphans.begin() + long(i));
    } else {
      ++i;
    }
  }
  rt().has_orphans = !g_orphans.empty();
  update_attention();
}

void orphan_request(MPI_Request &handle) {
  uint32_t index = uint32_t(handle) & kIndexMask;
  Request &r = request_of(handle);
  r.persistent = false;
  g_orphans.push_back(index - 1);
  rt().has_orphans = true;
  update_attention();
  handle = MPI_REQUEST_NULL;
}

void repost_after_restart() {
  auto &table = state().requests;
  std::vector<size_t> order;
  for (size_t i = 0; i < table.size(); ++i) {
    Request &r = table[i];
    r.real = MPI_REQUEST_NULL;
    r.wire = MPI_DATATYPE_NULL;
    if (r.kind == Request::Kind::Free || !r.active || r.done) continue;
    if (r.kind == Request::Kind::Collective) {
      // Started before the checkpoint: the commit waited for its result, which is in the log.
      if (!coll::restore_request(r)) fatal("restart diverged: no logged result for a pending collective");
      continue;
    }
    if (r.kind == Request::Kind::Send) {
      // Sent before the checkpoint: the receiver has it in its state or in its log.
      MPI_Status st{};
      make_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
      std::memcpy(r.status.words, &st, sizeof st);
      r.done = true;
    } else {
      order.push_back(i);
    }
  }
  // Posting order decides which receive a message matches.
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return table[a].posting < table[b].posting; });
  ProtocolState &st = state();
  uint64_t saved_next = st.next_posting;
  for (size_t i : order) {
    Request &r = table[i];
    const bool cancel_asked = r.cancel_asked;
    st.next_posting = r.posting;  // start_recv takes the request's own posting id again
    start_recv(r);
    // The program asked before the checkpoint and will not ask again: ask now (or replay).
    if (cancel_asked) cancel_request(r);
  }
  st.next_posting = saved_next;
}

}  // namespace c3::mpi

namespace c3::mpi {

int receive_matched(void *buf, int count, TypeArg type, MPI_Message *message,
                    MPI_Request *request, MPI_Status *status) {
  Request *r = nullptr;
  MPI_Request h = new_request(Request::Kind::Recv, &r);
  r->buf = reinterpret_cast<uintptr_t>(buf);
  r->count = count;
  r->type = type.app;
  hold_datatype(type.app);
  r->rtype = type.real;
  r->peer = MPI_ANY_SOURCE;  // the probe's match was logged already
  r->tag = 0;
  r->comm = MPI_COMM_NULL;
  r->active = true;
  r->posting = state().next_posting++;
  if (*message == MPI_MESSAGE_NO_PROC) {
    MPI_Status st{};
    make_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    std::memcpy(r->status.words, &st, sizeof st);
    r->done = true;
    *message = MPI_MESSAGE_NULL;
  } else {
    auto it = rt().message_comms.find(*message);
    r->comm = it != rt().message_comms.end() ? it->second : MPI_COMM_WORLD;
    r->rcomm = real_comm(r->comm);
    if (it != rt().message_comms.end()) rt().message_comms.erase(it);
    r->effective_source = MPI_PROC_NULL;  // matches nothing more (split::settle_earlier_receives)
    int rc = MPI_SUCCESS;
    auto split_it = rt().split_messages.find(*message);
    if (split_it != rt().split_messages.end()) {
      // The header was received by the probe: this is the payload's message.
      r->payload_pending = true;
      r->split_header = split_it->second;
      rt().split_messages.erase(split_it);
      if (!request) r->peer = 0;  // as below: a blocking receive's completion logs nothing more
      if (!split::receive_drained(*message, *r))
        rc = PMPI_Imrecv(buf, count, type.real, message, &r->real);
    } else {
      piggyback::Wire w = piggyback::prepare_recv(*r, buf, count, type.real, split::splits_large(r->comm));
      rc = PMPI_Imrecv(const_cast<void *>(w.buf), w.count, w.type, message, &r->real);
    }
    if (rc != MPI_SUCCESS) {
      free_request(h);
      return rc;
    }
  }
  if (request) {
    *request = h;
    return MPI_SUCCESS;
  }
  // peer stays MPI_ANY_SOURCE: completion logs nothing more (the probe was logged)
  r->peer = 0;
  wait_request(*r);
  MPI_Status st{};
  deliver(h, &st);
  copy_status_out(status, st);
  return MPI_SUCCESS;
}

}  // namespace c3::mpi
