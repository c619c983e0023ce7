#include "messages/small_completion.hpp"

#include <cstring>

#include "hooks/fast_paths.hpp"
#include "mpi_hooks.hpp"

#include "layer/layer.hpp"

#include "messages/message_registry.hpp"
#include "messages/mpich_status.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_lane.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {

uint64_t g_set_gathers = 0;

namespace {

// What a completed receive must carry to need nothing but counting: its header inline (not a
// split header) and of this epoch, while this rank runs normally (message_received would do
// nothing else). Computed once per call, tested per receive.
struct PlainArrival {
  bool run = state().mode == Mode::Run;
  int32_t header = piggyback::make_header(state().epoch, false);  // the logging bit aside
  bool operator()(const Request &r, const MPI_Status &st) const {
    if (st.count_lo < piggyback::kHeaderBytes) return false;  // a split header
    int32_t h;
    std::memcpy(&h, piggyback::wire_of(r), piggyback::kHeaderBytes);
    return run && (h & ~4) == header;
  }
};

// An MPI_Waitall over this many receives, or over receives whose bounces hold this many bytes
// in all, runs as rounds of PMPI_Waitsome that copy each arrival out while later ones are still
// on their way, instead of one PMPI_Waitall and the copies after it. After one PMPI_Waitall over a
// window of 64 receives of 4-8 KiB the first bounces had left the cache, and copying them out
// made the bandwidth 0.45-0.55 of plain MPICH's, against 0.72-0.82 for copying each as it
// completes (bench section 6, `bounce`). With 64 receives of 8 bytes the copies are cheap, but
// done after the last arrival they lie on the path of a sender that waits for the window's
// acknowledgement: rounds raised the message rate from 0.87 to 0.99 of plain MPICH's (medians
// of 9 interleaved runs of section 3's program). A halo exchange's send and receive keep one
// PMPI_Waitall (rounds would enter MPICH twice where once does); sends alone have nothing to copy.
constexpr size_t kCopyAsArrivedBytes = 32 * 1024;
constexpr int kCopyAsArrivedReceives = 8;

// A completed receive's payload, copied from its bounce to the program's buffer.
inline void copy_out(const Request &r, const MPI_Status &s) {
  // At most a bounce's bytes came: the count's high part is zero.
  piggyback::copy_small(reinterpret_cast<void *>(r.buf),
                        piggyback::wire_of(r) + piggyback::kHeaderBytes,
                        size_t(s.count_lo - piggyback::kHeaderBytes));
}

// MPI_Waitall's work as rounds of PMPI_Waitsome: each round's plain arrivals are copied out at
// once (a receive the general path takes later is copied again from the same bounce). Returns
// MPI_SUCCESS when all completed, or MPI_ERR_IN_STATUS after the first round that reported an
// error: the requests no round completed keep their MPICH request and the status
// MPI_ERR_PENDING, which the general completion treats as it does PMPI_Waitall's pending ones.
[[gnu::noinline]] int wait_copying(int n, SmallRequests &small, const PlainArrival &plain) {
  for (int k = 0; k < n; ++k) small.reported[k].MPI_ERROR = MPI_ERR_PENDING;
  for (int left = n; left > 0;) {
    int got = 0;
    const int rc = PMPI_Waitsome(n, small.reals, &got, small.arrived, small.round);
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return rc;
    // None active while some are pending cannot be (each had a live MPICH request): the
    // general completion sorts it out.
    if (got == MPI_UNDEFINED) return MPI_ERR_IN_STATUS;
    for (int j = 0; j < got; ++j) {
      const int k = small.arrived[j];
      MPI_Status &s = small.reported[k];
      s = small.round[j];
      if (rc == MPI_SUCCESS) s.MPI_ERROR = MPI_SUCCESS;  // MPICH sets it only on errors
      Request &r = *small.reqs[k];
      if (r.kind == Request::Kind::Recv && s.MPI_ERROR == MPI_SUCCESS && plain(r, s))
        copy_out(r, s);
    }
    left -= got;
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// The entry `h` names if it is in use and not done in c3, or null (MPI_REQUEST_NULL, an invalid
// handle, which the general path reports, a free or completed entry).
inline Request *pending_entry(MPI_Request h, size_t entries) {
  const uint32_t bits = uint32_t(h), index = bits & kIndexMask;
  if ((bits & ~kIndexMask) != kRequestType || index - 1 >= entries) return nullptr;
  Request &r = state().requests[index - 1];
  if (r.done || r.kind == Request::Kind::Free) return nullptr;
  return &r;
}

// The live request of the small-message path `h` names, or null (any other request).
inline Request *small_request(MPI_Request h, size_t entries) {
  Request *const r = pending_entry(h, entries);
  return r != nullptr && r->small ? r : nullptr;  // small and not done: its MPICH request is live
}

// This epoch's count of received messages, per world rank.
inline std::vector<uint64_t> &received_now() {
  ProtocolState &st = state();
  return st.received[st.epoch & 3];
}

// A plain arrival at a receive: its payload to the program (unless copied as it arrived), its
// message counted in `received` (MPICH reported it in `s`).
inline void finish_receive(const Request &r, const MPI_Status &s, bool copied,
                           std::vector<uint64_t> &received) {
  if (!copied) copy_out(r, s);
  const int source = r.comm == MPI_COMM_WORLD ? s.MPI_SOURCE : world_rank_of(r.comm, s.MPI_SOURCE);
  ++received[size_t(source)];
}

// Whether MPICH's completion `reported` of `r` needs nothing but counting.
inline bool plain_completion(const Request &r, const MPI_Status &reported,
                             const PlainArrival &plain) {
  return r.kind != Request::Kind::Recv || plain(r, reported);
}

// Hands a plain completion of `r` out as MPI_Wait and MPI_Test do (the status of a single
// completion: MPI_ERROR untouched, of a send only the cancelled flag) and gives its slot back.
inline void hand_out(Request &r, MPI_Request &handle, MPI_Status *status, MPI_Status &reported,
                     std::vector<uint64_t> &received) {
  if (r.kind == Request::Kind::Recv) {
    finish_receive(r, reported, false, received);
    reported.count_lo -= piggyback::kHeaderBytes;
    copy_status_out(status, reported);
  } else if (status != MPI_STATUS_IGNORE) {
    set_send_status(*status, reported);
  }
  release_small_slot(r, handle);
}

// After MPICH completed `r` with `reported`: hands it out; false, with nothing done, when it
// needs the general completion.
inline bool finish_one(Request &r, MPI_Request &handle, MPI_Status *status, MPI_Status &reported) {
  if (!plain_completion(r, reported, PlainArrival{})) return false;
  hand_out(r, handle, status, reported, received_now());
  return true;
}

// The request of an MPI_Wait or MPI_Test that may take the small path, or null.
inline Request *single_small(MPI_Request handle, MPI_Status &reported) {
  if (split::must_poll()) return nullptr;  // a receive elsewhere may need its payload
  Request *const r = small_request(handle, state().requests.size());
  // MPICH sets MPI_ERROR only on errors, and of a send's status hardly anything.
  if (r != nullptr) reported = MPI_Status{};
  return r;
}

}  // namespace

SmallWait wait_small(MPI_Request &handle, MPI_Status *status, MPI_Status &reported, int &rc) {
  Request *const r = single_small(handle, reported);
  if (r == nullptr) return SmallWait::NotSmall;
  ++g_depth;  // inside the layer while in MPICH (the wrapper's inline path has no Entry)
  rc = PMPI_Wait(&r->real, &reported);
  --g_depth;
  if (rc != MPI_SUCCESS || !finish_one(*r, handle, status, reported)) return SmallWait::General;
  return SmallWait::Done;
}

SmallWait test_small(MPI_Request &handle, int &flag, MPI_Status *status, MPI_Status &reported,
                     int &rc) {
  Request *const r = single_small(handle, reported);
  if (r == nullptr) return SmallWait::NotSmall;
  flag = 0;
  ++g_depth;
  rc = PMPI_Test(&r->real, &flag, &reported);
  --g_depth;
  if (rc != MPI_SUCCESS) return SmallWait::General;
  if (!flag) return SmallWait::Done;  // still in flight: nothing to hand out
  if (!finish_one(*r, handle, status, reported)) return SmallWait::General;
  return SmallWait::Done;
}

namespace {

// The live request of the small-message lane `h` names, or the split-message lane's as that lane
// left it (split_lane::untouched), or null.
inline Request *lane_request(MPI_Request h, size_t entries) {
  Request *const r = pending_entry(h, entries);
  return r != nullptr && (r->small || split_lane::untouched(*r)) ? r : nullptr;
}

// After the first PMPI_Waitall of an MPI_Waitall whose requests (small.reqs, small.n of them)
// include receives of the split-message lane, all completed (small.reported) and each a split
// header of this epoch (`headers`, in request order): their payloads' receives, all at once.
// Returns MPICH's result; each lane receive's `reported` is then its payload's status
// (MPI_ERR_PENDING if it is still pending after an error), its entry what the general
// completion expects of it.
[[gnu::noinline]] int wait_split_payloads(SmallRequests &small, const int32_t *headers) {
  MPI_Request *const payloads = small.reals;  // all spent by the first PMPI_Waitall
  int m = 0;
  for (int k = 0; k < small.n; ++k) {
    Request &r = *small.reqs[k];
    if (!r.split_lane || r.kind != Request::Kind::Recv) continue;
    r.real = MPI_REQUEST_NULL;  // the header's, spent
    split_lane::header_came(r, headers[m]);
    small.round[m].MPI_ERROR = MPI_SUCCESS;  // MPICH sets it only on errors
    payloads[m++] = r.real;
  }
  ++g_depth;
  const int rc = PMPI_Waitall(m, payloads, small.round);
  --g_depth;
  for (int k = 0, j = 0; k < small.n; ++k)
    if (small.reqs[k]->split_lane && small.reqs[k]->kind == Request::Kind::Recv)
      small.reported[k] = small.round[j++];
  return rc;
}

}  // namespace

SmallWait wait_all_small(int count, MPI_Request handles[], MPI_Status statuses[],
                         SmallRequests &small, int &rc) {
  Request **const reqs = small.reqs;
  MPI_Request *const reals = small.reals;
  MPI_Status *const reported = small.reported;
  if (split::must_poll()) return SmallWait::NotSmall;  // a receive elsewhere may need its payload
  ProtocolState &st = state();
  const size_t entries = st.requests.size();
  int n = 0;
  int receives = 0, split_receives = 0;
  size_t receive_bytes = 0;
  for (int i = 0; i < count; ++i) {
    if (handles[i] == MPI_REQUEST_NULL) continue;
    Request *const r = lane_request(handles[i], entries);
    if (r == nullptr) return SmallWait::NotSmall;
    reqs[n] = r;
    reals[n++] = r->real;
    if (r->kind == Request::Kind::Recv) {
      if (r->split_lane) {
        ++split_receives;
        continue;
      }
      ++receives;
      receive_bytes += r->bounce.size();
    }
  }
  if (split_receives > fast::kMaxRequests) return SmallWait::NotSmall;  // the hook's, with more
  const PlainArrival plain;
  const bool copy_as_arrived =
      receives >= kCopyAsArrivedReceives || receive_bytes >= kCopyAsArrivedBytes;
  MPI_Status *wanted = MPI_STATUSES_IGNORE;
  if (receives > 0 || split_receives > 0 || statuses != MPI_STATUSES_IGNORE) {
    for (int k = 0; k < n; ++k) reported[k].MPI_ERROR = MPI_SUCCESS;  // MPICH sets it on errors
    wanted = reported;
  }
  ++g_depth;  // inside the layer while in MPICH (the wrapper's inline path has no Entry)
  rc = n == 0            ? MPI_SUCCESS
       : copy_as_arrived ? wait_copying(n, small, plain)
                         : PMPI_Waitall(n, reals, wanted);
  --g_depth;
  small.n = n;
  small.statuses_reported = wanted != MPI_STATUSES_IGNORE;

  // MPICH freed every request (unless one failed). Any receive that needs more than counting
  // goes to the general path, with all the others (it completes them in posting order).
  if (rc != MPI_SUCCESS) return SmallWait::General;
  int32_t headers[fast::kMaxRequests];  // of the split lane's receives, in request order
  if (receives > 0 || split_receives > 0)
    for (int k = 0, j = 0; k < n; ++k) {
      const Request &r = *reqs[k];
      if (r.kind != Request::Kind::Recv) continue;
      if (r.split_lane ? !split_lane::plain_header(r, reported[k], plain.header, plain.run,
                                                   headers[j++])
                       : !plain(r, reported[k]))
        return SmallWait::General;
    }
  if (split_receives > 0) {
    rc = wait_split_payloads(small, headers);
    if (rc != MPI_SUCCESS) return SmallWait::General;  // a payload cut short, say
  }

  std::vector<uint64_t> &received = received_now();
  // A receive's payload to the program (a split one's is there already), its message counted;
  // MPICH's status `s` of it becomes the program's.
  auto finish = [&](Request &r, MPI_Status &s) {
    if (r.split_lane) {
      ++received[size_t(s.MPI_SOURCE)];  // MPI_COMM_WORLD's bulk: world ranks
      return;
    }
    finish_receive(r, s, copy_as_arrived, received);
    s.count_lo -= piggyback::kHeaderBytes;
  };
  auto give_back = [](Request &r, MPI_Request &handle) {
    if (r.split_lane) {
      ++split_lane::g_finished;
      split_lane::release(r, handle);
    } else {
      release_small_slot(r, handle);
    }
  };
  if (statuses == MPI_STATUSES_IGNORE) {  // no status to fill, no null handle to report
    for (int i = 0, k = 0; k < n; ++i) {
      if (handles[i] == MPI_REQUEST_NULL) continue;
      Request &r = *reqs[k];
      if (r.kind == Request::Kind::Recv) finish(r, reported[k]);
      ++k;
      give_back(r, handles[i]);
    }
    return SmallWait::Done;
  }
  for (int i = 0, k = 0; i < count; ++i) {
    MPI_Status *to = &statuses[i];
    if (handles[i] == MPI_REQUEST_NULL) {
      empty_status(to);
      continue;
    }
    Request &r = *reqs[k];
    MPI_Status &s = reported[k++];  // MPICH filled it: statuses are wanted
    if (r.kind == Request::Kind::Recv) {
      finish(r, s);
      *to = s;  // MPI_Waitall sets MPI_ERROR of every status it fills
    } else {
      set_send_status(*to, s);
      to->MPI_ERROR = s.MPI_ERROR;
    }
    give_back(r, handles[i]);
  }
  return SmallWait::Done;
}

namespace {

// The set of the last MPI_Waitsome, _Testany, _Testsome or _Testall the lane did, kept while no
// lane entry can have changed: a program that polls a window calls again and again with the
// same handles, and gathering them anew touched one table entry per handle on every call.
// `reals` are MPICH's requests as these calls leave them (MPICH sets a completed one to
// MPI_REQUEST_NULL there itself).
struct PolledSet {
  bool valid = false;
  uint64_t stamp = 0;  // lane_stamp() when gathered or last brought up to date
  int count = 0;
  int active = 0;  // handles not MPI_REQUEST_NULL
  MPI_Request handles[fast::kMaxRequests];
  Request *reqs[fast::kMaxRequests];
  MPI_Request reals[fast::kMaxRequests];
};
PolledSet g_polled;

// Changes whenever a lane entry may have: a slot taken or given back, any hook run, the table
// cleared (each count only grows).
inline uint64_t lane_stamp() { return g_entries + g_lane_changes + RequestTable::clears(); }

// Points `set` at the polled set for the `count` handles of a call, gathering it unless it is
// the one kept; false when a handle is neither MPI_REQUEST_NULL nor a live request of the lane,
// when none is active, or when a receive elsewhere may need c3 to post its payload meanwhile.
bool gather_set(int count, const MPI_Request handles[], SmallSet &set) {
  if (split::must_poll()) return false;
  PolledSet &p = g_polled;
  set.reqs = p.reqs;
  set.reals = p.reals;
  const size_t entries = state().requests.size();
  if (p.valid && p.stamp == lane_stamp() && p.count == count &&
      std::memcmp(p.handles, handles, sizeof(MPI_Request) * size_t(count)) == 0)
    return p.active > 0;
  p.valid = false;
  ++g_set_gathers;
  int active = 0;
  for (int i = 0; i < count; ++i) {
    Request *r = nullptr;
    if (handles[i] != MPI_REQUEST_NULL) {
      r = small_request(handles[i], entries);
      if (r == nullptr) return false;
      ++active;
    }
    p.handles[i] = handles[i];
    p.reqs[i] = r;
    p.reals[i] = r ? r->real : MPI_REQUEST_NULL;
  }
  p.valid = true;
  p.stamp = lane_stamp();
  p.count = count;
  p.active = active;
  return active > 0;
}

// The MPICH call of a set (`call` returns its result), inside the layer (the wrapper's inline
// path has no Entry). If anything else changed a lane entry meanwhile (a callback MPICH ran, say
// an error handler of the program's that made calls of its own), the polled set is gathered anew
// next time.
template <class Call>
int polled_in_mpich(Call call) {
  const uint64_t before = lane_stamp();
  ++g_depth;
  const int rc = call();
  --g_depth;
  if (lane_stamp() != before) g_polled.valid = false;
  return rc;
}
// The polled set's entry `i` was handed out, its slot given back (and the program's handle
// set to MPI_REQUEST_NULL): so is the set's.
inline void polled_handed_out(int i) {
  g_polled.handles[i] = MPI_REQUEST_NULL;
  g_polled.reqs[i] = nullptr;
  --g_polled.active;
}
// After a call's hand-outs, which changed the lane: the set is as the program's handles are.
inline void polled_current() { g_polled.stamp = lane_stamp(); }
// After a completion the general path takes over.
inline void polled_forget() { g_polled.valid = false; }

}  // namespace

SmallWait test_any_small(int count, MPI_Request handles[], int &index, int &flag,
                         MPI_Status *status, SmallSet &set, int &rc) {
  if (!gather_set(count, handles, set)) return SmallWait::NotSmall;
  MPI_Status &reported = set.reported[0];
  reported = MPI_Status{};  // MPICH sets MPI_ERROR only on errors
  int i = MPI_UNDEFINED;
  flag = 0;
  rc = polled_in_mpich([&] { return PMPI_Testany(count, set.reals, &i, &flag, &reported); });
  if (rc == MPI_SUCCESS && !flag) {  // all still in flight: nothing to hand out
    index = MPI_UNDEFINED;
    return SmallWait::Done;
  }
  set.done = i == MPI_UNDEFINED ? 0 : 1;
  set.completed[0] = i;
  if (rc != MPI_SUCCESS) reported.MPI_ERROR = rc;  // as test_request hands it on
  if (rc != MPI_SUCCESS || i == MPI_UNDEFINED ||
      !finish_one(*set.reqs[i], handles[i], status, reported)) {
    polled_forget();
    return SmallWait::General;
  }
  polled_handed_out(i);
  polled_current();
  index = i;
  return SmallWait::Done;
}

SmallWait some_small(bool wait, int count, MPI_Request handles[], int &outcount, int indices[],
                     MPI_Status statuses[], SmallSet &set, int &rc) {
  if (!gather_set(count, handles, set)) return SmallWait::NotSmall;
  int got = 0;
  rc = polled_in_mpich([&] {
    return wait ? PMPI_Waitsome(count, set.reals, &got, indices, set.reported)
                : PMPI_Testsome(count, set.reals, &got, indices, set.reported);
  });
  set.completed = indices;
  set.done = got == MPI_UNDEFINED ? 0 : got;
  if (rc != MPI_SUCCESS) {  // each status says what failed
    polled_forget();
    return SmallWait::General;
  }
  // MPICH sets MPI_ERROR only on errors; every completion's goes on if one needs more.
  for (int j = 0; j < set.done; ++j) set.reported[j].MPI_ERROR = MPI_SUCCESS;
  const PlainArrival plain;
  for (int j = 0; j < set.done; ++j)
    if (!plain_completion(*set.reqs[indices[j]], set.reported[j], plain)) {
      polled_forget();
      return SmallWait::General;
    }
  std::vector<uint64_t> &received = received_now();
  for (int j = 0; j < set.done; ++j) {
    const int i = indices[j];
    hand_out(*set.reqs[i], handles[i], status_at(statuses, j), set.reported[j], received);
    polled_handed_out(i);
  }
  polled_current();
  outcount = set.done;
  return SmallWait::Done;
}

SmallWait test_all_small(int count, MPI_Request handles[], int &flag, MPI_Status statuses[],
                         SmallSet &set, int &rc) {
  if (!gather_set(count, handles, set)) return SmallWait::NotSmall;
  int all = 0;
  rc = polled_in_mpich([&] { return PMPI_Testall(count, set.reals, &all, set.reported); });
  if (rc == MPI_SUCCESS && !all) {  // MPICH completed none of them
    flag = 0;
    return SmallWait::Done;
  }
  polled_forget();  // all of them completed (the program starts another set), or one failed
  // MPICH freed what it completed: all of them, or after an error those not pending.
  const PlainArrival plain;
  bool general = rc != MPI_SUCCESS;
  set.done = 0;
  for (int i = 0; i < count; ++i) {
    if (set.reqs[i] == nullptr || set.reals[i] != MPI_REQUEST_NULL) continue;
    MPI_Status &s = set.reported[i];
    if (rc == MPI_SUCCESS) s.MPI_ERROR = MPI_SUCCESS;  // MPICH sets it only on errors
    general = general || !plain_completion(*set.reqs[i], s, plain);
    set.completed[set.done++] = i;
  }
  if (general) {  // packed per completion for the general completion (k <= i)
    for (int k = 0; k < set.done; ++k) set.reported[k] = set.reported[set.completed[k]];
    return SmallWait::General;
  }
  std::vector<uint64_t> &received = received_now();
  for (int i = 0; i < count; ++i) {
    MPI_Status *to = status_at(statuses, i);
    if (set.reqs[i] == nullptr)
      empty_status(to);
    else
      hand_out(*set.reqs[i], handles[i], to, set.reported[i], received);
  }
  flag = 1;
  return SmallWait::Done;
}

void hand_to_general(const SmallRequests &small, int rc) {
  if (rc != MPI_SUCCESS && !small.statuses_reported) message_failed(rc);  // sends only
  RequestBatch &batch = request_batch();
  batch.pending.assign(small.reqs, small.reqs + small.n);
  batch.reals.assign(small.reals, small.reals + small.n);
  batch.statuses.assign(small.reported, small.reported + small.n);
  batch.indices.resize(size_t(small.n));
  for (int j = 0; j < small.n; ++j) batch.indices[size_t(j)] = j;
  batch.complete_waitall(rc);
}

int fast::wait_general(MPI_Request &handle, MPI_Status *status, MPI_Status &reported, int rc) {
  Entry entry;
  if (rc != MPI_SUCCESS) reported.MPI_ERROR = rc;  // as wait_request hands it on
  complete_real_request(request_of(handle), reported);
  return on_Wait(&handle, status);  // waits for a split payload, hands the status out
}

void fast::set_general(const SmallSet &set) {
  Entry entry;
  RequestBatch &batch = request_batch();
  batch.pending.clear();
  batch.statuses.clear();
  for (int k = 0; k < set.done; ++k) {
    batch.pending.push_back(set.reqs[set.completed[k]]);
    batch.statuses.push_back(set.reported[k]);
  }
  batch.indices.resize(batch.pending.size());
  for (size_t j = 0; j < batch.indices.size(); ++j) batch.indices[j] = int(j);
  batch.complete_reported(int(batch.pending.size()));
}

void fast::test_general(MPI_Request &handle, int flag, MPI_Status &reported, int rc) {
  Entry entry;
  if (rc != MPI_SUCCESS) reported.MPI_ERROR = rc;  // as test_request hands it on
  if (flag) complete_real_request(request_of(handle), reported);
}

int fast::waitall_general(int count, MPI_Request handles[], MPI_Status statuses[],
                          const SmallRequests &small, int rc) {
  Entry entry;
  hand_to_general(small, rc);
  return on_Waitall(count, handles, statuses);  // hands out what is complete, waits for the rest
}

}  // namespace c3::mpi
