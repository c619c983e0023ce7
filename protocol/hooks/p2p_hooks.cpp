// Point-to-point hooks: sends, receives, persistent requests and probes. Every message carries
// the piggybacked header; blocking calls are their nonblocking form plus a wait inside c3.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "layer/layer.hpp"
#include "handles/handles.hpp"
#include "messages/message_registry.hpp"
#include "messages/mpich_status.hpp"
#include "messages/payload_prepost.hpp"
#include "messages/payload_window.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"
#include "hooks/fast_paths.hpp"
#include "mpi_hooks.hpp"
#include "nondet/nondet.hpp"

namespace c3::mpi {
namespace {

// Messages of built-in types on an intracommunicator outside Restore that carry their header
// inline (up to the bounce limit): the short paths of hooks/fast_paths.hpp.
inline bool small_builtin(MPI_Datatype type, int count, int &bytes) {
  bytes = fast::builtin_bytes(count, type, int(piggyback::kBounceLimit));
  return bytes >= 0;
}

inline void describe(Request &r, const void *buf, int count, TypeArg type, int peer, int tag,
                     CommArg comm) {
  describe_message(r, buf, count, type.app, type.real, peer, tag, comm.app, comm.real);
}

// An active receive outside the request table (a blocking call outside Restore).
Request local_receive(void *buf, int count, TypeArg type, int source, int tag, CommArg comm,
                      uint64_t posting) {
  Request r;
  r.kind = Request::Kind::Recv;
  describe(r, buf, count, type, source, tag, comm);
  r.posting = posting;
  return r;
}

using fast::ShortPath;
using fast::world_of;

// Another intracommunicator c3 tracks: its members from the table.
[[gnu::noinline]] bool short_path_other(CommArg comm, ShortPath &p) {
  const CommInfo *info = comm_info(comm.app);
  if (!info || info->inter) return false;
  p = ShortPath{comm.app, comm.real, info->world.data(), info->size()};
  return true;
}

// Whether a blocking call on `comm` may take the short path (no log to replay).
inline bool short_path(CommArg comm, ShortPath &p) {
  if (state().mode == Mode::Restore) return false;
  if (comm.app == MPI_COMM_WORLD) {
    p = ShortPath{MPI_COMM_WORLD, MPI_COMM_WORLD, nullptr, rt().size};
    return true;
  }
  return short_path_other(comm, p);
}

// The request behind `h` was just started with result `rc`: on failure it is freed again.
int started(MPI_Request h, int rc) {
  if (rc != MPI_SUCCESS) free_request(h);
  return rc;
}

MPI_Request make_request(Request::Kind kind, const void *buf, int count, TypeArg type, int peer,
                         int tag, CommArg comm, bool persistent, Request **out) {
  Request *r = nullptr;
  MPI_Request h = new_request(kind, &r);
  r->persistent = persistent;
  r->buf = reinterpret_cast<uintptr_t>(buf);
  r->count = count;
  r->type = type.app;
  hold_datatype(type.app);
  r->rtype = type.real;
  r->peer = peer;
  r->tag = tag;
  r->comm = comm.app;
  r->rcomm = comm.real;
  *out = r;
  return h;
}

MPI_Request make_send(const void *buf, int count, TypeArg type, int dest, int tag, CommArg comm,
                      SendMode mode, bool persistent, Request **out) {
  MPI_Request h = make_request(Request::Kind::Send, buf, count, type, dest, tag, comm, persistent, out);
  (*out)->send_mode = mode;
  return h;
}

MPI_Request make_recv(void *buf, int count, TypeArg type, int source, int tag, CommArg comm,
                      bool persistent, Request **out) {
  return make_request(Request::Kind::Recv, buf, count, type, source, tag, comm, persistent, out);
}

[[gnu::noinline]] int blocking_send_general(const void *buf, int count, TypeArg type, int dest,
                                            int tag, CommArg comm, SendMode mode) {
  if (state().mode != Mode::Restore && mode != SendMode::Buffered) {
    // Nothing to suppress: straight to MPI, without an entry in the request table.
    Request r;
    const int world_dest = world_rank_of(comm.app, dest);
    count_sent(world_dest);
    if (split::sends_split(comm.app, world_dest, count, type.real))
      return split::send(buf, count, type.real, dest, tag, comm, mode, outgoing_header(), nullptr);
    piggyback::Wire w = piggyback::prepare_send(r, buf, count, type.real, outgoing_header());
    int rc = split::send_blocking(w.buf, w.count, w.type, dest, tag, comm.real, mode);
    piggyback::release(r);
    return rc;
  }
  Request *r = nullptr;
  MPI_Request h = make_send(buf, count, type, dest, tag, comm, mode, false, &r);
  int rc = started(h, start_send(*r));
  if (rc != MPI_SUCCESS) return rc;
  wait_request(*r);
  deliver(h, MPI_STATUS_IGNORE);
  return MPI_SUCCESS;
}

[[gnu::always_inline]] inline int blocking_send(const void *buf, int count, TypeArg type,
                                                int dest, int tag, CommArg comm, SendMode mode) {
  int bytes = 0;
  ShortPath p;
  if (mode != SendMode::Buffered && small_builtin(type.real, count, bytes) &&
      short_path(comm, p) && dest >= 0 && dest < p.size &&
      !payload_window::splits_all_to(world_of(p, dest)))
    return fast::send(buf, bytes, dest, tag, mode, p, borrowed::kStackUnknown);
  return blocking_send_general(buf, count, type, dest, tag, comm, mode);
}

// A nonblocking message that carries its header inline, of a built-in type, outside Restore and
// with no was-early message to suppress: the fields a free entry does not have already are set
// (free entries are kept reset), a built-in type needs no hold, and the wire is the entry's own
// bounce buffer. The message-rate pattern of many small Isend/Irecv spent most of c3's time in
// the general path's lookups.
int fast_isend(const void *buf, int count, TypeArg type, int bytes, int dest, int tag,
               SendMode mode, const ShortPath &p, MPI_Request *request) {
  Request *r = nullptr;
  MPI_Request h = new_request(Request::Kind::Send, &r);
  describe(*r, buf, count, type, dest, tag, CommArg{p.app, p.real});
  r->send_mode = mode;
  ++state().sent[size_t(world_of(p, dest))];
  const int n = piggyback::kHeaderBytes + bytes;
  char *const wire = piggyback::place_wire(*r, buf, bytes);
  const int32_t header = outgoing_header();
  std::memcpy(wire, &header, piggyback::kHeaderBytes);
  piggyback::copy_small(wire + piggyback::kHeaderBytes, buf, size_t(bytes));
  mark_lane(*r);
  const int rc = mode == SendMode::Standard
                     ? PMPI_Isend(wire, n, MPI_BYTE, dest, tag, p.real, &r->real)
                     : split::isend(wire, n, MPI_BYTE, dest, tag, p.real, mode, &r->real);
  if (rc != MPI_SUCCESS) return started(h, rc);
  *request = h;
  return MPI_SUCCESS;
}

int fast_irecv(void *buf, int count, TypeArg type, int capacity, int source, int tag,
               const ShortPath &p, MPI_Request *request) {
  Request *r = nullptr;
  MPI_Request h = new_request(Request::Kind::Recv, &r);
  describe(*r, buf, count, type, source, tag, CommArg{p.app, p.real});
  r->posting = state().next_posting++;
  r->effective_source = source;
  r->effective_tag = tag;
  const int n = piggyback::kHeaderBytes + capacity;
  char *const wire = piggyback::place_wire(*r, buf, capacity);
  mark_lane(*r);
  const int rc = PMPI_Irecv(wire, n, MPI_BYTE, source, tag, p.real, &r->real);
  if (rc != MPI_SUCCESS) return started(h, rc);
  *request = h;
  return MPI_SUCCESS;
}

int nonblocking_send(const void *buf, int count, TypeArg type, int dest, int tag, CommArg comm,
                     SendMode mode, MPI_Request *request) {
  int bytes = 0;
  ShortPath p;
  if (mode != SendMode::Buffered && small_builtin(type.real, count, bytes) &&
      short_path(comm, p) && dest >= 0 && dest < p.size && state().was_early.empty() &&
      !payload_window::splits_all_to(world_of(p, dest)))
    return fast_isend(buf, count, type, bytes, dest, tag, mode, p, request);
  Request *r = nullptr;
  MPI_Request h = make_send(buf, count, type, dest, tag, comm, mode, false, &r);
  int rc = started(h, start_send(*r));
  if (rc != MPI_SUCCESS) return rc;
  *request = h;
  return MPI_SUCCESS;
}

int persistent_send(const void *buf, int count, TypeArg type, int dest, int tag, CommArg comm,
                    SendMode mode, MPI_Request *request) {
  Request *r = nullptr;
  *request = make_send(buf, count, type, dest, tag, comm, mode, true, &r);
  return MPI_SUCCESS;
}

// Whether a receive's status reports its message truncated: MPICH puts an error code there, of
// class MPI_ERR_TRUNCATE (a split payload's receive); c3's own deliveries put the class itself.
bool truncated(const MPI_Status &st) {
  if (st.MPI_ERROR == MPI_SUCCESS) return false;
  int error_class = MPI_SUCCESS;
  return PMPI_Error_class(st.MPI_ERROR, &error_class) == MPI_SUCCESS &&
         error_class == MPI_ERR_TRUNCATE;
}

// A probed message's status counts its payload only.
void fix_status(MPI_Comm comm, MPI_Status &st) {
  if (!piggyback::fix_probe_status(st))
    set_status_bytes(st, split::probed_payload_bytes(comm, st.MPI_SOURCE, st.MPI_TAG));
}

// A probe's match: from the log when replaying; late messages of the log come first.
int probe(int source, int tag, CommArg comm, bool blocking, int *flag, MPI_Status *status) {
  uint64_t call = next_call();
  MPI_Status st{};
  if (source == MPI_PROC_NULL) {
    make_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    if (flag) *flag = 1;
    copy_status_out(status, st);
    return MPI_SUCCESS;
  }
  if (replaying(call)) {
    const Outcome &o = replayed(call);
    if (flag) *flag = o.flag;
    if (o.flag || blocking) {
      make_status(st, o.source, o.tag, o.bytes);
      copy_status_out(status, st);
    }
    return MPI_SUCCESS;
  }
  const int wanted_source = source, wanted_tag = tag;
  const std::optional<PinnedProbe> pinned = logged_probe_match(comm.app, source, tag);
  if (pinned) {
    source = pinned->source;  // that message or none: its sender sends it again
    tag = pinned->tag;
  }
  if (const LateMessage *m = peek_late_message(comm.app, source, tag)) {
    make_status(st, m->source, m->tag, int64_t(m->payload.size()));
    if (flag) *flag = 1;
  } else if (blocking) {
    split::probe_blocking(source, tag, comm.real, st);
    fix_status(comm.app, st);
  } else {
    int found = 0;
    split::progress();  // a polling program lets MPI progress
    PMPI_Iprobe(source, tag, comm.real, &found, &st);
    if (found) fix_status(comm.app, st);
    *flag = found;
  }
  bool found = blocking || *flag;
  if (flag && blocking) *flag = 1;
  if (found && pinned) probe_match_found(*pinned);
  if (found) before_logging_probe();
  if (found) probe_matched(call, comm.app, wanted_source, wanted_tag, st.MPI_SOURCE, st.MPI_TAG);
  MPI_Count bytes = 0;
  if (found) PMPI_Get_elements_x(&st, MPI_BYTE, &bytes);
  log_outcome(call, found ? 1 : 0, {}, found ? st.MPI_SOURCE : 0, found ? st.MPI_TAG : 0,
              int64_t(bytes));
  if (found) copy_status_out(status, st);
  return MPI_SUCCESS;
}

}  // namespace

// --- send

int on_Send(const void *buf, int count, TypeArg datatype, int dest, int tag,
            CommArg comm) noexcept {
  return blocking_send(buf, count, datatype, dest, tag, comm, SendMode::Standard);
}
int on_Bsend(const void *buf, int count, TypeArg datatype, int dest, int tag,
            CommArg comm) noexcept {
  return blocking_send(buf, count, datatype, dest, tag, comm, SendMode::Buffered);
}
int on_Ssend(const void *buf, int count, TypeArg datatype, int dest, int tag,
            CommArg comm) noexcept {
  return blocking_send(buf, count, datatype, dest, tag, comm, SendMode::Sync);
}
int on_Rsend(const void *buf, int count, TypeArg datatype, int dest, int tag,
            CommArg comm) noexcept {
  return blocking_send(buf, count, datatype, dest, tag, comm, SendMode::Ready);
}
int on_Isend(const void *buf, int count, TypeArg datatype, int dest, int tag, CommArg comm,
             MPI_Request *request) noexcept {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, SendMode::Standard, request);
}
int on_Ibsend(const void *buf, int count, TypeArg datatype, int dest, int tag, CommArg comm,
              MPI_Request *request) noexcept {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, SendMode::Buffered, request);
}
int on_Issend(const void *buf, int count, TypeArg datatype, int dest, int tag, CommArg comm,
              MPI_Request *request) noexcept {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, SendMode::Sync, request);
}
int on_Irsend(const void *buf, int count, TypeArg datatype, int dest, int tag, CommArg comm,
              MPI_Request *request) noexcept {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, SendMode::Ready, request);
}

// --- recv

namespace {

[[gnu::noinline]] int blocking_recv_general(void *buf, int count, TypeArg datatype, int source,
                                            int tag, CommArg comm, MPI_Status *status) {
  if (state().mode != Mode::Restore) {
    // No log to serve it from: straight to MPI, without an entry in the request table.
    Request r = local_receive(buf, count, datatype, source, tag, comm, state().next_posting++);
    piggyback::Wire w =
        piggyback::prepare_recv(r, buf, count, datatype.real, split::splits_large(comm.app));
    MPI_Status st{};
    int rc = split::recv_blocking(const_cast<void *>(w.buf), w.count, w.type, source, tag,
                                  comm.real, st);
    if (rc != MPI_SUCCESS) message_failed(rc);  // the header did not arrive
    finish_blocking(r, st);
    if (rc == MPI_SUCCESS && truncated(st)) rc = MPI_ERR_TRUNCATE;
    MPI_Status out;
    std::memcpy(&out, r.status.words, sizeof out);
    copy_status_out(status, out);
    return rc;
  }
  Request *r = nullptr;
  MPI_Request h = make_recv(buf, count, datatype, source, tag, comm, false, &r);
  int rc = started(h, start_recv(*r));
  if (rc != MPI_SUCCESS) return rc;
  wait_request(*r);
  MPI_Status st{};
  deliver(h, &st);
  copy_status_out(status, st);
  return truncated(st) ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

}  // namespace

int on_Recv(void *buf, int count, TypeArg datatype, int source, int tag, CommArg comm,
            MPI_Status *status) noexcept {
  int capacity = 0;
  ShortPath p;
  if (small_builtin(datatype.real, count, capacity) && short_path(comm, p))
    return fast::recv(buf, capacity, source, tag, *status, p, borrowed::kStackUnknown);
  return blocking_recv_general(buf, count, datatype, source, tag, comm, status);
}

int on_Irecv(void *buf, int count, TypeArg datatype, int source, int tag, CommArg comm,
             MPI_Request *request) noexcept {
  int capacity = 0;
  ShortPath p;
  if (small_builtin(datatype.real, count, capacity) && short_path(comm, p) &&
      source != MPI_PROC_NULL && !prepost::diverting())
    return fast_irecv(buf, count, datatype, capacity, source, tag, p, request);
  Request *r = nullptr;
  MPI_Request h = make_recv(buf, count, datatype, source, tag, comm, false, &r);
  int rc = started(h, start_recv(*r));
  if (rc != MPI_SUCCESS) return rc;
  *request = h;
  return MPI_SUCCESS;
}

// --- sendrecv: a send and a receive posted together, completed together.

int on_Sendrecv(const void *sendbuf, int sendcount, TypeArg sendtype, int dest, int sendtag,
                void *recvbuf, int recvcount, TypeArg recvtype, int source, int recvtag,
                CommArg comm, MPI_Status *status) noexcept {
  Request *rr = nullptr, *sr = nullptr;
  MPI_Request rh = make_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, false, &rr);
  start_recv(*rr);
  MPI_Request sh = make_send(sendbuf, sendcount, sendtype, dest, sendtag, comm,
                             SendMode::Standard, false, &sr);
  start_send(*sr);
  wait_request(*sr);
  wait_request(*rr);
  deliver(sh, MPI_STATUS_IGNORE);
  MPI_Status st{};
  deliver(rh, &st);
  copy_status_out(status, st);
  return truncated(st) ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

int on_Sendrecv_replace(void *buf, int count, TypeArg datatype, int dest, int sendtag,
                        int source, int recvtag, CommArg comm, MPI_Status *status) noexcept {
  // The outgoing data leaves from a copy, so the reply can land in `buf` meanwhile. The copy
  // spans every byte the `count` elements touch: from the lowest true lower bound to the
  // highest true upper bound, which the extent alone misses for a resized type.
  std::vector<char> copy;
  MPI_Aint low = 0;
  if (count > 0) {
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    PMPI_Type_get_extent(datatype.real, &lb, &extent);
    PMPI_Type_get_true_extent(datatype.real, &true_lb, &true_extent);
    const MPI_Aint last = true_lb + MPI_Aint(count - 1) * extent;
    low = std::min(true_lb, last);
    const MPI_Aint high = std::max(true_lb, last) + true_extent;
    copy.resize(size_t(high - low));
    if (!copy.empty()) std::memcpy(copy.data(), static_cast<char *>(buf) + low, copy.size());
  }
  void *copy_base = copy.data() - low;
  return on_Sendrecv(copy_base, count, datatype, dest, sendtag, buf, count, datatype, source,
                     recvtag, comm, status);
}

// --- persistent

int on_Send_init(const void *buf, int count, TypeArg datatype, int dest, int tag,
                 CommArg comm, MPI_Request *request) noexcept {
  return persistent_send(buf, count, datatype, dest, tag, comm, SendMode::Standard, request);
}
int on_Bsend_init(const void *buf, int count, TypeArg datatype, int dest, int tag,
                  CommArg comm, MPI_Request *request) noexcept {
  return persistent_send(buf, count, datatype, dest, tag, comm, SendMode::Buffered, request);
}
int on_Ssend_init(const void *buf, int count, TypeArg datatype, int dest, int tag,
                  CommArg comm, MPI_Request *request) noexcept {
  return persistent_send(buf, count, datatype, dest, tag, comm, SendMode::Sync, request);
}
int on_Rsend_init(const void *buf, int count, TypeArg datatype, int dest, int tag,
                  CommArg comm, MPI_Request *request) noexcept {
  return persistent_send(buf, count, datatype, dest, tag, comm, SendMode::Ready, request);
}
int on_Recv_init(void *buf, int count, TypeArg datatype, int source, int tag, CommArg comm,
                 MPI_Request *request) noexcept {
  Request *r = nullptr;
  *request = make_recv(buf, count, datatype, source, tag, comm, true, &r);
  return MPI_SUCCESS;
}

// --- start

namespace {

int start(Request &r, const char *function) {
  if (r.active) fatal(std::string(function) + ": the persistent request is already active");
  switch (r.kind) {
    case Request::Kind::Send: return start_send(r);
    case Request::Kind::Recv: return start_recv(r);
    case Request::Kind::Native: return start_native(r);
    default: fatal(std::string(function) + ": not a persistent request");
  }
}

}  // namespace

int on_Start(MPI_Request *request) noexcept { return start(request_of(*request), "MPI_Start"); }

int on_Startall(int count, MPI_Request array_of_requests[]) noexcept {
  for (int i = 0; i < count; ++i) {
    int rc = start(request_of(array_of_requests[i]), "MPI_Startall");
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// --- probe

int on_Probe(int source, int tag, CommArg comm, MPI_Status *status) noexcept {
  return probe(source, tag, comm, true, nullptr, status);
}

int on_Iprobe(int source, int tag, CommArg comm, int *flag, MPI_Status *status) noexcept {
  return probe(source, tag, comm, false, flag, status);
}

int fast::recv_unusual(void *buf, int capacity, int source, int tag, MPI_Status &s,
                       const char *wire, uint64_t posting, const ShortPath &p) {
  Entry entry;  // the wrapper's inline path has none of its own
  if (status_bytes(s) == piggyback::kSplitHeaderBytes) {
    // A split message: its payload (truncated if it does not fit, as MPI would), with the
    // payload's status; MPI_ERROR is not written by MPICH's MPI_Recv (the program's, or garbage)
    // and stays: MPI_Recv returns its error, as MPICH's does.
    const int error = s.MPI_ERROR;
    const CommArg comm{p.app, p.real};
    int32_t header = 0;
    if (!split::must_poll() && !split::payloads_drained() && prepost::preposted_now() == 0 &&
        piggyback::decode_split_header(reinterpret_cast<const unsigned char *>(wire), header)) {
      // What the general completion does, without a request: no other receive can hold a
      // header of this pair, so the payload is received at once.
      if (piggyback::split_flag(header)) prepost::marked_header(p.app, s.MPI_SOURCE, s.MPI_TAG);
      MPI_Status payload;
      split::receive_payload_now(buf, capacity, comm, s.MPI_SOURCE, s.MPI_TAG, payload);
      settle_earlier_matches(p.app, posting, payload.MPI_SOURCE, payload.MPI_TAG);
      message_received(p.app, payload.MPI_SOURCE, payload.MPI_TAG, header, buf, MPI_BYTE,
                       status_bytes(payload), source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG,
                       posting);
      s = payload;
    } else {
      Request r = local_receive(buf, capacity, TypeArg{MPI_BYTE, MPI_BYTE}, source, tag, comm,
                                posting);
      r.bounce.assign(wire, size_t(piggyback::kSplitHeaderBytes));  // r.wire_at is 0
      s.MPI_ERROR = MPI_SUCCESS;
      finish_blocking(r, s);
    }
    const bool cut = truncated(s);
    s.MPI_ERROR = error;
    return cut ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  }
  piggyback::headerless_arrival(s);
}

void fast::recv_noted(void *buf, int64_t bytes, int source, int tag, const MPI_Status &s,
                      int32_t header, uint64_t posting, MPI_Comm comm) {
  Entry entry;
  settle_earlier_matches(comm, posting, s.MPI_SOURCE, s.MPI_TAG);
  message_received(comm, s.MPI_SOURCE, s.MPI_TAG, header, buf, MPI_BYTE, bytes,
                   source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG, posting);
}

}  // namespace c3::mpi
