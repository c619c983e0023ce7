#include "messages/split_transfer.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/mpich_status.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi::split {
namespace {

// Headers in flight. Sent nonblocking: to itself a rank's send completes only once received.
struct HeaderSend {
  unsigned char wire[piggyback::kSplitHeaderBytes];
  MPI_Request request = MPI_REQUEST_NULL;
};
std::deque<std::unique_ptr<HeaderSend>> g_header_sends;
std::vector<std::unique_ptr<HeaderSend>> g_spare_header_sends;  // reused: one per large send

void reap_header_sends() {
  while (!g_header_sends.empty()) {
    int flag = 0;
    PMPI_Test(&g_header_sends.front()->request, &flag, MPI_STATUS_IGNORE);
    if (!flag) return;
    if (g_spare_header_sends.size() < 64) g_spare_header_sends.push_back(std::move(g_header_sends.front()));
    g_header_sends.pop_front();
  }
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

bool sends_split(MPI_Comm comm, int count, MPI_Datatype type) {
  return splits_large(comm) && piggyback::payload_bytes(count, type) > piggyback::kBounceLimit;
}

int send(const void *buf, int count, MPI_Datatype type, int dest, int tag, CommArg comm,
         SendMode mode, int32_t header, MPI_Request *request) {
  reap_header_sends();
  std::unique_ptr<HeaderSend> pending;
  if (g_spare_header_sends.empty()) {
    pending = std::make_unique<HeaderSend>();
  } else {
    pending = std::move(g_spare_header_sends.back());
    g_spare_header_sends.pop_back();
  }
  piggyback::encode_split_header(header, pending->wire);
  int rc = PMPI_Isend(pending->wire, piggyback::kSplitHeaderBytes, MPI_BYTE, dest, tag,
                      comm.real, &pending->request);
  if (rc != MPI_SUCCESS) return rc;
  g_header_sends.push_back(std::move(pending));
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
  settle_earlier_receives(r.comm, source, tag, r.posting, &r);
  r.payload_pending = true;
  r.split_header = header;
  int rc = PMPI_Irecv(reinterpret_cast<void *>(r.buf), r.count, r.rtype, source, tag,
                      bulk_of(r.comm), &r.real);
  if (rc != MPI_SUCCESS) fatal("could not post the receive of a large message's payload");
}

int64_t probed_payload_bytes(MPI_Comm comm, int source, int tag) {
  settle_earlier_receives(comm, source, tag, UINT64_MAX, nullptr);
  MPI_Status st{};
  PMPI_Probe(source, tag, bulk_of(comm), &st);  // sent right after the header
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
  settle_earlier_receives(comm.app, source, tag, UINT64_MAX, nullptr);
  MPI_Status ps;
  PMPI_Mprobe(source, tag, bulk_of(comm.app), message, &ps);
  set_status_bytes(st, status_bytes(ps));
  rt().split_messages[*message] = header;
}

void header_stage_started(Request &r) {
  if (!splits_large(r.comm) || piggyback::payload_bytes(r.count, r.rtype) <= piggyback::kBounceLimit)
    return;
  r.awaits_header = true;
  rt().awaiting.emplace(r.posting, &r);
}

void header_stage_over(Request &r) {
  if (!r.awaits_header) return;
  r.awaits_header = false;
  rt().awaiting.erase({r.posting, &r});
}

void complete_arrived_headers() {
  std::vector<Request *> now;  // completing one changes the set
  for (const auto &entry : rt().awaiting) now.push_back(entry.second);
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

void setup() { PMPI_Comm_dup(MPI_COMM_WORLD, &rt().bulk); }

void teardown() {
  for (auto &h : g_header_sends) PMPI_Wait(&h->request, MPI_STATUS_IGNORE);
  g_header_sends.clear();
  g_spare_header_sends.clear();
  if (rt().bulk != MPI_COMM_NULL) PMPI_Comm_free(&rt().bulk);
}

}  // namespace c3::mpi::split
