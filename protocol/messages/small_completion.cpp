#include "messages/small_completion.hpp"

#include "hooks/fast_paths.hpp"
#include "mpi_hooks.hpp"

#include "layer/layer.hpp"

#include "messages/message_registry.hpp"
#include "messages/mpich_status.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {
namespace {

// A completed receive whose message is of this epoch in Run mode and carries its header inline:
// nothing to log, classify or wait for.
inline bool plain_arrival(const Request &r, const MPI_Status &st) {
  if (st.count_lo < piggyback::kHeaderBytes) return false;  // a split header
  int32_t header;
  std::memcpy(&header, piggyback::wire_of(r), piggyback::kHeaderBytes);
  return intra_epoch_in_run_mode(header);
}

// Receives whose bounces hold this many bytes in all are copied out round by round as they
// arrive, while their bounces are still in the cache. After one PMPI_Waitall over a window of
// 64 receives of 4-8 KiB the first bounces had left the cache, and copying them out made the
// bandwidth 0.45-0.55 of plain MPICH's, against 0.72-0.82 for copying each as it completes
// (bench section 6, `bounce`). Below it, one PMPI_Waitall costs less than rounds of Waitsome.
constexpr size_t kCopyAsArrivedBytes = 32 * 1024;

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
[[gnu::noinline]] int wait_copying(int n, SmallRequests &small) {
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
      if (r.kind == Request::Kind::Recv && s.MPI_ERROR == MPI_SUCCESS && plain_arrival(r, s))
        copy_out(r, s);
    }
    left -= got;
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace

SmallWait wait_all_small(int count, MPI_Request handles[], MPI_Status statuses[],
                         SmallRequests &small, int &rc) {
  Request **const reqs = small.reqs;
  MPI_Request *const reals = small.reals;
  MPI_Status *const reported = small.reported;
  if (split::must_poll()) return SmallWait::NotSmall;  // a receive elsewhere may need its payload
  int n = 0;
  bool receives = false;
  size_t receive_bytes = 0;
  for (int i = 0; i < count; ++i) {
    if (handles[i] == MPI_REQUEST_NULL) continue;
    // An invalid handle is the general path's to report (the inline path has no Entry).
    const uint32_t h = uint32_t(handles[i]), index = h & kIndexMask;
    if ((h & ~kIndexMask) != kRequestType || index - 1 >= state().requests.size())
      return SmallWait::NotSmall;
    Request &r = state().requests[index - 1];
    // Small and not done: its MPICH request is live.
    if (!r.small || r.done || r.kind == Request::Kind::Free) return SmallWait::NotSmall;
    reqs[n] = &r;
    reals[n++] = r.real;
    if (r.kind == Request::Kind::Recv) {
      receives = true;
      receive_bytes += r.bounce.size();
    }
  }
  const bool copy_as_arrived = receive_bytes >= kCopyAsArrivedBytes;
  MPI_Status *wanted = MPI_STATUSES_IGNORE;
  if (receives || statuses != MPI_STATUSES_IGNORE) {
    for (int k = 0; k < n; ++k) reported[k].MPI_ERROR = MPI_SUCCESS;  // MPICH sets it on errors
    wanted = reported;
  }
  ++g_depth;  // inside the layer while in MPICH (the wrapper's inline path has no Entry)
  rc = n == 0            ? MPI_SUCCESS
       : copy_as_arrived ? wait_copying(n, small)
                         : PMPI_Waitall(n, reals, wanted);
  --g_depth;
  small.n = n;
  small.statuses_reported = wanted != MPI_STATUSES_IGNORE;

  // MPICH freed every request (unless one failed). Any receive that needs more than counting
  // goes to the general path, with all the others (it completes them in posting order).
  for (int k = 0; k < n; ++k)
    if (rc != MPI_SUCCESS ||
        (reqs[k]->kind == Request::Kind::Recv && !plain_arrival(*reqs[k], reported[k])))
      return SmallWait::General;

  ProtocolState &st = state();
  auto &received = st.received[st.epoch & 3];
  int k = 0;
  for (int i = 0; i < count; ++i) {
    MPI_Status *to = status_at(statuses, i);
    if (handles[i] == MPI_REQUEST_NULL) {
      empty_status(to);
      continue;
    }
    Request &r = *reqs[k];
    MPI_Status &s = reported[k++];  // reported when it is a receive or statuses are wanted
    if (r.kind == Request::Kind::Recv) {
      if (!copy_as_arrived) copy_out(r, s);
      const int bytes = s.count_lo - piggyback::kHeaderBytes;
      const int source = r.comm == MPI_COMM_WORLD ? s.MPI_SOURCE : world_rank_of(r.comm, s.MPI_SOURCE);
      ++received[size_t(source)];
      if (to != MPI_STATUS_IGNORE) {
        s.count_lo = bytes;
        *to = s;  // MPI_Waitall sets MPI_ERROR of every status it fills
      }
    } else if (to != MPI_STATUS_IGNORE) {
      set_send_status(*to, s);
      to->MPI_ERROR = s.MPI_ERROR;
    }
    release_small_slot(r, handles[i]);
  }
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

int fast::waitall_general(int count, MPI_Request handles[], MPI_Status statuses[],
                          const SmallRequests &small, int rc) {
  Entry entry;
  hand_to_general(small, rc);
  return on_Waitall(count, handles, statuses);  // hands out what is complete, waits for the rest
}

}  // namespace c3::mpi
