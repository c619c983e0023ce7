#include "messages/split_transfer.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/mpich_status.hpp"
#include "messages/payload_prepost.hpp"
#include "messages/payload_window.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi::split {
namespace {

// The split header of each header value (colour, logging bit and piggyback::kSplitsAll): sends
// read it from here, so it outlives every send of it.
struct SplitHeaders {
  static constexpr int kValues = 16;
  unsigned char wire[kValues][piggyback::kSplitHeaderBytes];
  SplitHeaders() {
    for (int h = 0; h < kValues; ++h)
      piggyback::encode_split_header(piggyback::kMarker | h, wire[h]);
  }
};
const unsigned char *split_header_wire(int32_t header) {
  static const SplitHeaders headers;
  return headers.wire[header & (SplitHeaders::kValues - 1)];
}

// Headers in flight. Sent nonblocking: to itself a rank's send completes only once received.
// (MPI_Request_free instead lost a header sent to itself in a one-rank job of MPICH 4.0.2.)
// Reaped a window at a time: testing the oldest from every send ran MPICH's progress once per
// message (about 880 instructions of a 16 KiB message's).
constexpr size_t kReapWindow = 64;
std::vector<MPI_Request> g_header_sends;
size_t g_reap_at = kReapWindow;
std::vector<int> g_reaped;  // PMPI_Testsome's indices

void keep_header_send(MPI_Request request) {
  g_header_sends.push_back(request);
  if (g_header_sends.size() < g_reap_at) return;
  int done = 0;
  g_reaped.resize(g_header_sends.size());
  PMPI_Testsome(int(g_header_sends.size()), g_header_sends.data(), &done, g_reaped.data(),
                MPI_STATUSES_IGNORE);  // sets the completed ones to MPI_REQUEST_NULL
  g_header_sends.erase(std::remove(g_header_sends.begin(), g_header_sends.end(), MPI_REQUEST_NULL),
                       g_header_sends.end());
  // Headers nobody receives yet (to itself, say) stay; they are looked at again only once as
  // many more have gone out.
  g_reap_at = std::max(kReapWindow, 2 * g_header_sends.size());
}

// Payloads sent from c3's copy to a receiver that stalled this rank (payload_window.hpp): the
// copy lives until its send completes.
struct PayloadCopy {
  std::unique_ptr<char[]> bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};
std::vector<PayloadCopy> g_payload_copies;

void reap_payload_copies() {
  size_t keep = 0;
  for (PayloadCopy &c : g_payload_copies) {
    int flag = 0;
    PMPI_Test(&c.request, &flag, MPI_STATUS_IGNORE);
    if (!flag) g_payload_copies[keep++] = std::move(c);
  }
  g_payload_copies.resize(keep);
}

// Payloads received before their header was matched, while this rank stalled their senders
// (stall_senders): by bulk communicator, source and tag, in arrival order, which is send order.
std::map<std::tuple<MPI_Comm, int, int>, std::deque<std::string>> g_drained;
size_t g_drained_count = 0;

// The oldest drained payload from (source, tag) on `bulk`, removed; false if there is none.
bool take_drained(MPI_Comm bulk, int source, int tag, std::string &payload) {
  if (g_drained_count == 0) return false;
  auto it = g_drained.find({bulk, source, tag});
  if (it == g_drained.end()) return false;
  payload = std::move(it->second.front());
  it->second.pop_front();
  if (it->second.empty()) g_drained.erase(it);
  --g_drained_count;
  return true;
}

}  // namespace

void put_back_drained(MPI_Comm app, int source, int tag, std::vector<std::string> &&payloads) {
  auto &queue = g_drained[{bulk_of(app), source, tag}];
  queue.insert(queue.begin(), std::make_move_iterator(payloads.begin()),
               std::make_move_iterator(payloads.end()));
  g_drained_count += payloads.size();
}

namespace {

const std::string *peek_drained(MPI_Comm bulk, int source, int tag) {
  if (g_drained_count == 0) return nullptr;
  auto it = g_drained.find({bulk, source, tag});
  return it == g_drained.end() ? nullptr : &it->second.front();
}

// A split message matched by MPI_Mprobe whose payload was drained: the program's message
// handle (object type REQUEST, bits 25 and 24 set, unlike c3's request handles and the log's
// messages) leads to the payload.
constexpr uint32_t kDrainedMessage = (0xbu << 26) | (3u << 24);
struct DrainedMessage {
  int source, tag;
  std::string payload;
};
std::map<MPI_Message, DrainedMessage> g_drained_messages;
uint32_t g_next_drained_message = 1;

// Delivers a drained payload into r (a receive whose split header came) and completes it.
void deliver_drained(Request &r, int source, int tag, std::string payload) {
  LateMessage m;
  m.source = source;
  m.tag = tag;
  m.payload = std::move(payload);
  MPI_Status st{};
  deliver_late_message(m, reinterpret_cast<void *>(r.buf), r.count, r.rtype, st);
  complete_real_request(r, st);
}

// Every bulk communicator of this rank with the program's communicator it belongs to.
template <class F>
void for_each_bulk(F &&f) {
  if (rt().bulk != MPI_COMM_NULL) f(MPI_COMM_WORLD, rt().bulk);
  handles().comms.for_each([&](MPI_Comm app, auto &slot) {
    if (slot.info.bulk != MPI_COMM_NULL) f(app, slot.info.bulk);
  });
}

// Receives every payload that came before its header was matched (stall_senders).
void drain_payloads() {
  for_each_bulk([](MPI_Comm app, MPI_Comm bulk) {
    for (;;) {
      int found = 0;
      MPI_Message message = MPI_MESSAGE_NULL;
      MPI_Status st{};
      PMPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, bulk, &found, &message, &st);
      if (!found) return;
      int bytes = 0;
      PMPI_Get_count(&st, MPI_PACKED, &bytes);  // MPI_PACKED matches any sent type
      std::string payload(size_t(bytes), '\0');
      PMPI_Mrecv(payload.data(), bytes, MPI_PACKED, &message, &st);
      payload_window::took(world_rank_of(app, st.MPI_SOURCE));
      g_drained[{bulk, st.MPI_SOURCE, st.MPI_TAG}].push_back(std::move(payload));
      ++g_drained_count;
    }
  });
}

// How long a rank about to block waits for the headers of its awaiting receives before it stalls
// their senders (stall_senders).
constexpr uint64_t kHeaderWaitNs = 2000;

// The world ranks that may send a split header to a receive awaiting one.
std::vector<int> possible_senders() {
  std::vector<uint8_t> marked(size_t(rt().size), 0);
  for (const auto &entry : rt().awaiting) {
    const Request &q = *entry.item;
    if (q.effective_source != MPI_ANY_SOURCE) {
      marked[size_t(world_rank_of(q.comm, q.effective_source))] = 1;
    } else if (q.comm == MPI_COMM_WORLD) {
      std::fill(marked.begin(), marked.end(), 1);
    } else if (const CommInfo *info = comm_info(q.comm)) {
      for (int w : info->inter ? info->remote_world : info->world) marked[size_t(w)] = 1;
    }
  }
  std::vector<int> senders;
  for (size_t w = 0; w < marked.size(); ++w)
    if (marked[w]) senders.push_back(int(w));
  return senders;
}

// A send to a receiver that stalls this rank: the payload goes from a packed copy, so neither
// the program's send nor anything else waits for the receiver; the program's request is the
// header's, which a synchronous send sends synchronously (it completes once matched).
int send_copied(const void *buf, int count, MPI_Datatype type, int dest, int tag, CommArg comm,
                SendMode mode, int32_t header, MPI_Request *request) {
  PayloadCopy copy;
  int room = 0, used = 0;
  PMPI_Pack_size(count, type, comm.real, &room);
  copy.bytes = std::make_unique<char[]>(size_t(room));
  PMPI_Pack(buf, count, type, copy.bytes.get(), room, &used, comm.real);
  MPI_Request header_request = MPI_REQUEST_NULL;
  const void *wire = split_header_wire(header);
  int rc = mode == SendMode::Sync ? PMPI_Issend(wire, piggyback::kSplitHeaderBytes, MPI_BYTE,
                                                dest, tag, comm.real, &header_request)
                                  : PMPI_Isend(wire, piggyback::kSplitHeaderBytes, MPI_BYTE,
                                               dest, tag, comm.real, &header_request);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Isend(copy.bytes.get(), used, MPI_PACKED, dest, tag, bulk_of(comm.app), &copy.request);
  if (rc != MPI_SUCCESS) return rc;
  g_payload_copies.push_back(std::move(copy));
  if (request) {
    *request = header_request;
    return MPI_SUCCESS;
  }
  MPI_Status st{};
  return wait(header_request, st);
}

}  // namespace

MPI_Comm bulk_of(MPI_Comm app) {
  if (app == MPI_COMM_WORLD) return rt().bulk;
  const CommInfo *info = comm_info(app);
  return info ? info->bulk : MPI_COMM_NULL;
}

MPI_Comm make_bulk(MPI_Comm real) {
  MPI_Comm bulk = MPI_COMM_NULL;
  if (rt().bulk == MPI_COMM_NULL || real == MPI_COMM_NULL) return bulk;
  // Not MPI_Comm_dup: that would copy the program's attributes (running its copy callbacks,
  // and its delete callbacks when the bulk is freed). The same members, in the same order.
  MPI_Group group;
  PMPI_Comm_group(real, &group);
  PMPI_Comm_create(real, group, &bulk);
  PMPI_Group_free(&group);
  return bulk;
}

bool sends_split(MPI_Comm comm, int world_dest, int count, MPI_Datatype type) {
  return splits_large(comm) && (piggyback::payload_bytes(count, type) > piggyback::kBounceLimit ||
                                payload_window::splits_all_to(world_dest));
}

int send(const void *buf, int count, MPI_Datatype type, int dest, int tag, CommArg comm,
         SendMode mode, int32_t header, MPI_Request *request) {
  if (!g_payload_copies.empty()) reap_payload_copies();
  const int receiver = world_rank_of(comm.app, dest);
  // This and every later message to the receiver travel split: it may post their payloads'
  // receives early (payload_prepost.hpp).
  if (payload_window::splits_all_to(receiver)) header |= piggyback::kSplitsAll;
  // Counted before the payload goes out: a receiver that stalls this rank from now on waits for
  // it, and one that did already gets a copy (payload_window.hpp).
  if (payload_window::announce(receiver))
    return send_copied(buf, count, type, dest, tag, comm, mode, header, request);
  MPI_Request header_request = MPI_REQUEST_NULL;
  int rc = PMPI_Isend(split_header_wire(header), piggyback::kSplitHeaderBytes, MPI_BYTE, dest,
                      tag, comm.real, &header_request);
  if (rc != MPI_SUCCESS) return rc;
  keep_header_send(header_request);
  // The payload's receive is posted only once the header arrived: a ready send becomes standard.
  const SendMode payload_mode = mode == SendMode::Sync ? mode : SendMode::Standard;
  const MPI_Comm bulk = bulk_of(comm.app);
  if (request) return isend(buf, count, type, dest, tag, bulk, payload_mode, request);
  return send_blocking(buf, count, type, dest, tag, bulk, payload_mode);
}

void settle_earlier_receives(MPI_Comm comm, int source, int tag, uint64_t before_posting,
                             const Request *except) {
  // Any such receive is matched already (else it would have taken this header), so waiting for
  // it ends as soon as its own message is in.
  if (rt().awaiting.empty() || rt().awaiting.begin()->posting >= before_posting) return;
  std::vector<Request *> earlier;
  for (const auto &[posting, q] : rt().awaiting) {
    if (posting >= before_posting) break;
    if (q != except && q->comm == comm &&
        receive_may_take(q->effective_source, q->effective_tag, source, tag))
      earlier.push_back(q);
  }
  for (Request *q : earlier) {
    // q's state is read again each round: progress() may settle it meanwhile.
    while (q->awaits_header && q->real != MPI_REQUEST_NULL) {
      MPI_Status st{};
      int flag = 1;
      if (must_poll())
        PMPI_Test(&q->real, &flag, &st);
      else
        PMPI_Wait(&q->real, &st);
      if (flag)
        complete_real_request(*q, st);
      else
        progress();
    }
  }
}

void post_payload_receive(Request &r, int source, int tag, int32_t header) {
  // A preposted receive's triple is marked already.
  if (piggyback::split_flag(header) && !r.preposted) prepost::marked_header(r.comm, source, tag);
  settle_earlier_receives(r.comm, source, tag, r.posting, &r);
  r.payload_pending = true;
  r.split_header = header;
  if (r.preposted) {  // still: an earlier receive's withdrawal may have taken its payload
    prepost::header_came(r);
    return;
  }
  leave_lane(r);  // the payload lands in the program's buffer
  const MPI_Comm bulk = bulk_of(r.comm);
  std::string drained;
  if (take_drained(bulk, source, tag, drained)) {
    deliver_drained(r, source, tag, std::move(drained));
    return;
  }
  payload_window::took(world_rank_of(r.comm, source));
  int rc = PMPI_Irecv(reinterpret_cast<void *>(r.buf), r.count, r.rtype, source, tag, bulk, &r.real);
  if (rc != MPI_SUCCESS) fatal("could not post the receive of a large message's payload");
}

bool payloads_drained() { return !g_drained.empty(); }

void receive_payload_now(void *buf, int capacity, CommArg comm, int source, int tag,
                         MPI_Status &st) {
  payload_window::took(world_rank_of(comm.app, source));
  st = MPI_Status{};
  if (int rc = PMPI_Recv(buf, capacity, MPI_BYTE, source, tag, bulk_of(comm.app), &st);
      rc != MPI_SUCCESS)
    st.MPI_ERROR = rc;
}

int64_t probed_payload_bytes(MPI_Comm comm, int source, int tag) {
  settle_earlier_receives(comm, source, tag, UINT64_MAX, nullptr);
  const MPI_Comm bulk = bulk_of(comm);
  if (const std::string *drained = peek_drained(bulk, source, tag)) return int64_t(drained->size());
  MPI_Status st{};
  PMPI_Probe(source, tag, bulk, &st);  // sent right after the header
  return status_bytes(st);
}

void match_payload(CommArg comm, MPI_Message *message, MPI_Status &st) {
  const int source = st.MPI_SOURCE, tag = st.MPI_TAG;
  unsigned char wire[piggyback::kSplitHeaderBytes];
  MPI_Status hs;
  PMPI_Mrecv(wire, piggyback::kSplitHeaderBytes, MPI_BYTE, message, &hs);
  int32_t header = 0;
  if (!piggyback::decode_split_header(wire, header))
    fatal("a message from rank " + std::to_string(source) +
          " carries no c3 header: build every rank with c3cc");
  if (piggyback::split_flag(header)) prepost::marked_header(comm.app, source, tag);
  settle_earlier_receives(comm.app, source, tag, UINT64_MAX, nullptr);
  const MPI_Comm bulk = bulk_of(comm.app);
  std::string drained;
  if (take_drained(bulk, source, tag, drained)) {
    *message = MPI_Message(kDrainedMessage | (g_next_drained_message++ & ((1u << 24) - 1)));
    set_status_bytes(st, int64_t(drained.size()));
    g_drained_messages[*message] = DrainedMessage{source, tag, std::move(drained)};
  } else {
    MPI_Status ps;
    PMPI_Mprobe(source, tag, bulk, message, &ps);
    payload_window::took(world_rank_of(comm.app, source));
    set_status_bytes(st, status_bytes(ps));
  }
  rt().split_messages[*message] = header;
}

bool receive_drained(MPI_Message &message, Request &r) {
  auto it = g_drained_messages.find(message);
  if (it == g_drained_messages.end()) return false;
  DrainedMessage m = std::move(it->second);
  g_drained_messages.erase(it);
  message = MPI_MESSAGE_NULL;
  deliver_drained(r, m.source, m.tag, std::move(m.payload));
  return true;
}

void header_stage_started(Request &r, bool early) {
  if (!splits_large(r.comm)) return;
  const bool large = early || piggyback::payload_bytes(r.count, r.rtype) > piggyback::kBounceLimit;
  if (!large && !prepost::diverting()) return;
  r.awaits_header = true;
  rt().awaiting.insert(r.posting, &r);
  prepost::started(r, large, early);
}

void header_stage_over(Request &r) {
  if (!r.awaits_header) return;
  r.awaits_header = false;
  rt().awaiting.erase(r.posting, &r);
  prepost::stage_over(r);
}

void end_stall() {
  if (payload_window::stalls_any()) payload_window::release_all();
}

void stall_senders() {
  complete_arrived_headers();
  // A header in flight (its sender a little behind this rank, as in a halo exchange that
  // overlaps a reduction) usually comes within microseconds: waiting that long costs less than
  // the stall, which would make the sender copy its payload.
  const uint64_t until = now_ns() + kHeaderWaitNs;
  while (must_poll() && now_ns() < until) complete_arrived_headers();
  if (!must_poll()) return;
  const std::vector<int> senders = possible_senders();
  static std::vector<int64_t> announced;
  announced.assign(size_t(rt().size), -1);  // -1: stalled before, took everything then
  payload_window::stall(senders, announced);
  // A sender that saw the mark sends copies from now on; what it announced before may come from
  // the program's buffer, and it may be waiting for exactly that: take every one of them.
  auto owed = [&] {
    for (int s : senders)
      if (announced[size_t(s)] > payload_window::taken(s)) return true;
    return false;
  };
  while (owed()) {
    complete_arrived_headers();
    drain_payloads();
  }
}

void complete_arrived_headers() {
  std::vector<Request *> now;  // completing one changes the set
  for (const auto &entry : rt().awaiting) now.push_back(entry.item);
  for (Request *q : now) {
    if (!q->awaits_header || q->real == MPI_REQUEST_NULL) continue;
    int flag = 0;
    MPI_Status st{};
    PMPI_Test(&q->real, &flag, &st);
    if (flag) complete_real_request(*q, st);
  }
}

int wait(MPI_Request &request, MPI_Status &st) {
  if (!must_poll()) return PMPI_Wait(&request, &st);
  for (;;) {
    int flag = 0;
    const int rc = PMPI_Test(&request, &flag, &st);
    if (flag || rc != MPI_SUCCESS) return rc;
    progress();
  }
}

int isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          SendMode mode, MPI_Request *request) {
  switch (mode) {
    case SendMode::Standard: return PMPI_Isend(buf, count, type, dest, tag, comm, request);
    case SendMode::Buffered: return PMPI_Ibsend(buf, count, type, dest, tag, comm, request);
    case SendMode::Sync: return PMPI_Issend(buf, count, type, dest, tag, comm, request);
    case SendMode::Ready: return PMPI_Irsend(buf, count, type, dest, tag, comm, request);
  }
  return MPI_ERR_INTERN;
}

int send_blocking(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  SendMode mode) {
  if (!must_poll()) {
    switch (mode) {
      case SendMode::Standard: return PMPI_Send(buf, count, type, dest, tag, comm);
      case SendMode::Buffered: return PMPI_Bsend(buf, count, type, dest, tag, comm);
      case SendMode::Sync: return PMPI_Ssend(buf, count, type, dest, tag, comm);
      case SendMode::Ready: return PMPI_Rsend(buf, count, type, dest, tag, comm);
    }
  }
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = isend(buf, count, type, dest, tag, comm, mode, &request);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Status st{};
  wait(request, st);
  return MPI_SUCCESS;
}

int recv_blocking(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Status &st) {
  if (!must_poll()) return PMPI_Recv(buf, count, type, source, tag, comm, &st);
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &request);
  if (rc != MPI_SUCCESS) return rc;
  return wait(request, st);  // st.MPI_ERROR untouched, as by MPI_Recv: the error is returned
}

void probe_blocking(int source, int tag, MPI_Comm comm, MPI_Status &st) {
  if (!must_poll()) {
    PMPI_Probe(source, tag, comm, &st);
    return;
  }
  for (int flag = 0; !flag;) {
    PMPI_Iprobe(source, tag, comm, &flag, &st);
    if (!flag) progress();
  }
}

void mprobe_blocking(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status &st) {
  if (!must_poll()) {
    PMPI_Mprobe(source, tag, comm, message, &st);
    return;
  }
  for (int flag = 0; !flag;) {
    PMPI_Improbe(source, tag, comm, &flag, message, &st);
    if (!flag) progress();
  }
}

void finish_pending_payloads() {
  for (Request &r : state().requests)
    if (r.payload_pending) {
      MPI_Status st{};
      PMPI_Wait(&r.real, &st);
      complete_real_request(r, st);
    }
}

size_t header_sends_kept() { return g_header_sends.size(); }

void setup() {
  PMPI_Comm_dup(MPI_COMM_WORLD, &rt().bulk);
  payload_window::create();
  prepost::setup();
}

void teardown() {
  for (MPI_Request &h : g_header_sends) PMPI_Wait(&h, MPI_STATUS_IGNORE);
  g_header_sends.clear();
  g_reap_at = kReapWindow;
  // Every rank is in MPI_Finalize: a payload still unsent has no receive (the program never
  // received that message). MPICH finishes or drops it; its copy stays allocated meanwhile.
  for (PayloadCopy &c : g_payload_copies) {
    int flag = 0;
    PMPI_Test(&c.request, &flag, MPI_STATUS_IGNORE);
    if (!flag) {
      PMPI_Request_free(&c.request);
      c.bytes.release();
    }
  }
  g_payload_copies.clear();
  g_drained.clear();
  g_drained_count = 0;
  g_drained_messages.clear();
  prepost::teardown();
  payload_window::release_all();
  payload_window::destroy();
  if (rt().bulk != MPI_COMM_NULL) PMPI_Comm_free(&rt().bulk);
}

}  // namespace c3::mpi::split
