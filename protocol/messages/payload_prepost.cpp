#include "messages/payload_prepost.hpp"

#include <string>
#include <unordered_set>
#include <vector>

#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/mpich_status.hpp"
#include "messages/payload_window.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"

namespace c3::mpi::prepost {

namespace detail {
bool g_asked_any = false;
size_t g_unprepared = 0;
Triple g_last_marked{MPI_COMM_NULL, MPI_PROC_NULL, 0};
}
using detail::g_last_marked;
using detail::g_unprepared;
using detail::Triple;

namespace {

struct TripleHash {
  size_t operator()(const Triple &t) const {
    uint64_t h = uint64_t(uint32_t(t.comm)) * 0x9e3779b97f4a7c15ull;
    h ^= uint64_t(uint32_t(t.source)) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= uint64_t(uint32_t(t.tag)) + 0x85ebca6bull + (h << 6) + (h >> 2);
    return size_t(h);
  }
};
std::unordered_set<Triple, TripleHash> g_marked;

bool marked(const Triple &t) {
  if (t == g_last_marked) return true;
  if (!g_marked.count(t)) return false;
  g_last_marked = t;
  return true;
}

std::vector<uint8_t> g_asked;  // by world rank: asked to send every message split
size_t g_preposted = 0;        // receives in the awaiting set with a preposted payload receive
uint64_t g_given_back = 0;

// Whether a receive that is not in the awaiting set (posted before this rank asked anybody) may
// still take a message from world rank `sender`: then asking now could let a split header
// reach it after a preposted receive's, and its payload receive would come second.
bool others_may_take_from(int sender) {
  for (const Request &q : state().requests) {
    if (q.kind != Request::Kind::Recv || !q.active || q.done || q.awaits_header ||
        q.payload_pending || q.real == MPI_REQUEST_NULL)
      continue;
    if (q.effective_source == MPI_ANY_SOURCE) return true;
    if (world_rank_of(q.comm, q.effective_source) == sender) return true;
  }
  return false;
}

// Whether a receive in the awaiting set posted before `posting`, without a preposted payload, may
// take a message of (comm, source, tag) (it would post its payload receive after this one's).
bool earlier_unprepared_may_take(MPI_Comm comm, int source, int tag, uint64_t posting) {
  for (const auto &entry : rt().awaiting) {
    const Request &q = *entry.item;
    if (entry.posting >= posting) break;
    if (!q.preposted && q.comm == comm &&
        receive_may_take(q.effective_source, q.effective_tag, source, tag))
      return true;
  }
  return false;
}

// Cancels r's payload receive; false if it took a payload first (`ps` its status).
bool cancel_payload(Request &r, MPI_Status &ps) {
  ps = MPI_Status{};
  PMPI_Cancel(&r.payload_real);
  // A payload that matched is only being copied in. One too big for this receive was cut short:
  // its bytes are lost, which only a sender that did not split every message could cause.
  if (PMPI_Wait(&r.payload_real, &ps) != MPI_SUCCESS)
    fatal("internal error: a payload received early did not fit the receive that took it");
  return status_cancelled(ps);
}

// An exact receive outside Restore (where receives are served from the log): one that may ask
// its sender, or prepost.
bool exact_outside_restore(const Request &r) {
  return r.effective_source != MPI_ANY_SOURCE && r.effective_tag != MPI_ANY_TAG &&
         state().mode != Mode::Restore;
}

}  // namespace

bool eligible(const Request &r) {
  if (!detail::g_asked_any || !exact_outside_restore(r)) return false;
  return eligible(r.comm, r.effective_source, r.effective_tag,
                  piggyback::payload_bytes(r.count, r.rtype), r.posting);
}

bool eligible(MPI_Comm comm, int source, int tag, int64_t bytes, uint64_t posting) {
  if (!detail::g_asked_any || source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG ||
      state().mode == Mode::Restore || !split::splits_large(comm) ||
      bytes <= piggyback::kBounceLimit || split::payloads_drained() ||
      !marked(Triple{comm, source, tag}))
    return false;
  return g_unprepared == 0 || !earlier_unprepared_may_take(comm, source, tag, posting);
}

void started(Request &r, bool large, bool early) {
  if (early) {
    const int rc = PMPI_Irecv(reinterpret_cast<void *>(r.buf), r.count, r.rtype,
                              r.effective_source, r.effective_tag, split::bulk_of(r.comm),
                              &r.payload_real);
    if (rc != MPI_SUCCESS) fatal("could not post the receive of a large message's payload");
    r.preposted = true;
    ++g_preposted;
    return;
  }
  if (large && exact_outside_restore(r) && !g_asked.empty()) {
    const int sender = world_rank_of(r.comm, r.effective_source);
    if (!g_asked[size_t(sender)] && !others_may_take_from(sender)) {
      payload_window::ask_splits_all(sender);
      g_asked[size_t(sender)] = 1;
      detail::g_asked_any = true;
    }
  }
  ++g_unprepared;
}

void stage_over(const Request &r) {
  if (r.preposted)
    --g_preposted;
  else
    --g_unprepared;
}

void marked_header(MPI_Comm comm, int source, int tag) {
  g_marked.insert(Triple{comm, source, tag});
}

void header_came(Request &r) {
  r.preposted = false;
  payload_window::took(world_rank_of(r.comm, r.effective_source));
  r.real = r.payload_real;
  r.payload_real = MPI_REQUEST_NULL;
}

void post_on_world(Request &r) {
  r.awaits_header = true;
  rt().awaiting.insert(r.posting, &r);
  const int rc = PMPI_Irecv(reinterpret_cast<void *>(r.buf), r.count, r.rtype, r.effective_source,
                            r.effective_tag, rt().bulk, &r.payload_real);
  if (rc != MPI_SUCCESS) fatal("could not post the receive of a large message's payload");
  r.preposted = true;
  ++g_preposted;
}

void header_came_on_world(Request &r) {
  r.awaits_header = false;
  rt().awaiting.erase(r.posting, &r);
  --g_preposted;
  r.preposted = false;
  payload_window::took(r.effective_source);  // a rank of MPI_COMM_WORLD is its world rank
  r.real = r.payload_real;
  r.payload_real = MPI_REQUEST_NULL;
}

void withdraw(Request &r) {
  r.preposted = false;
  MPI_Status ps;
  if (cancel_payload(r, ps)) return;  // nothing taken: the later ones' payloads still line up
  // It took the payload of the triple's next split message, whose header a later receive gets;
  // every later preposted receive of the triple is one payload ahead too.
  const int source = r.effective_source, tag = r.effective_tag;
  const int sender = world_rank_of(r.comm, source);
  std::vector<std::string> taken;
  taken.push_back(
      packed_payload(reinterpret_cast<const void *>(r.buf), r.rtype, status_bytes(ps)));
  payload_window::took(sender);
  std::vector<Request *> later;
  for (const auto &entry : rt().awaiting) {
    Request *q = entry.item;
    if (q != &r && q->preposted && entry.posting > r.posting && q->comm == r.comm &&
        q->effective_source == source && q->effective_tag == tag)
      later.push_back(q);
  }
  for (Request *q : later) {
    q->preposted = false;
    --g_preposted;
    ++g_unprepared;
    if (!cancel_payload(*q, ps)) {
      taken.push_back(
          packed_payload(reinterpret_cast<const void *>(q->buf), q->rtype, status_bytes(ps)));
      payload_window::took(sender);
    }
  }
  g_given_back += taken.size();
  split::put_back_drained(r.comm, source, tag, std::move(taken));
}

int cancel(Request &r) {
  MPI_Status hs{};
  PMPI_Cancel(&r.real);
  PMPI_Wait(&r.real, &hs);  // a header that matched is in already (3 bytes)
  complete_real_request(r, hs);
  return MPI_SUCCESS;
}

size_t preposted_now() { return g_preposted; }
uint64_t payloads_given_back() { return g_given_back; }

void awaiting_cleared() { g_unprepared = g_preposted = 0; }

void forget_asks() {
  for (size_t s = 0; s < g_asked.size(); ++s)
    if (g_asked[s]) payload_window::unask_splits_all(int(s));
  g_asked.assign(g_asked.size(), 0);
  detail::g_asked_any = false;
  g_marked.clear();
  g_last_marked = Triple{MPI_COMM_NULL, MPI_PROC_NULL, 0};
}

void setup() {
  g_asked.assign(size_t(rt().size), 0);
  detail::g_asked_any = false;
  g_marked.clear();
  g_last_marked = Triple{MPI_COMM_NULL, MPI_PROC_NULL, 0};
  g_unprepared = g_preposted = 0;
}

void teardown() { setup(); }

}  // namespace c3::mpi::prepost
