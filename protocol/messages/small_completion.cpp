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
  std::memcpy(&header, r.bounce.data(), piggyback::kHeaderBytes);
  return intra_epoch_in_run_mode(header);
}

// The entry goes back to the free slots, as free_request leaves it.
inline void free_small(Request &r, MPI_Request &handle) {
  if (r.bounce.capacity() > BounceBuffer::kSmallCapacity) piggyback::release(r);
  r.reset();
  g_free_slots.push_back((uint32_t(handle) & kIndexMask) - 1);
  handle = MPI_REQUEST_NULL;
}

}  // namespace

bool wait_all_small(int count, MPI_Request handles[], MPI_Status statuses[]) {
  if (split::must_poll()) return false;  // a receive elsewhere may need its payload posted
  RequestBatch &batch = request_batch();
  batch.pending.clear();
  batch.reals.clear();
  bool receives = false;
  for (int i = 0; i < count; ++i) {
    if (handles[i] == MPI_REQUEST_NULL) continue;
    Request &r = request_of(handles[i]);
    if (!r.small || r.done) return false;  // small and not done: its MPICH request is live
    batch.pending.push_back(&r);
    batch.reals.push_back(r.real);
    receives |= r.kind == Request::Kind::Recv;
  }
  const int n = int(batch.reals.size());
  MPI_Status *reported = MPI_STATUSES_IGNORE;
  if (receives || statuses != MPI_STATUSES_IGNORE) {
    batch.statuses.resize(size_t(n));
    for (MPI_Status &s : batch.statuses) s.MPI_ERROR = MPI_SUCCESS;  // MPICH sets it on errors
    reported = batch.statuses.data();
  }
  const int rc = n > 0 ? PMPI_Waitall(n, batch.reals.data(), reported) : MPI_SUCCESS;
  if (rc != MPI_SUCCESS && reported == MPI_STATUSES_IGNORE) message_failed(rc);  // sends only

  // MPICH freed every request (unless one failed). Any receive that needs more than counting
  // goes to the general path, with all the others (it completes them in posting order).
  for (int k = 0; k < n; ++k) {
    const Request &r = *batch.pending[size_t(k)];
    if (rc != MPI_SUCCESS ||
        (r.kind == Request::Kind::Recv && !plain_arrival(r, batch.statuses[size_t(k)]))) {
      batch.indices.resize(size_t(n));
      for (int j = 0; j < n; ++j) batch.indices[size_t(j)] = j;
      batch.complete_waitall(rc);
      return false;
    }
  }

  ProtocolState &st = state();
  auto &received = st.received[st.epoch & 3];
  int k = 0;
  for (int i = 0; i < count; ++i) {
    MPI_Status *to = status_at(statuses, i);
    if (handles[i] == MPI_REQUEST_NULL) {
      empty_status(to);
      continue;
    }
    Request &r = *batch.pending[size_t(k)];
    if (r.kind == Request::Kind::Recv) {
      MPI_Status &s = batch.statuses[size_t(k)];  // reported: the call has a receive
      // At most a bounce's bytes came: the count's high part is zero.
      const int bytes = s.count_lo - piggyback::kHeaderBytes;
      piggyback::copy_small(reinterpret_cast<void *>(r.buf),
                            r.bounce.data() + piggyback::kHeaderBytes, size_t(bytes));
      s.count_lo = bytes;
      const int source = r.comm == MPI_COMM_WORLD ? s.MPI_SOURCE : world_rank_of(r.comm, s.MPI_SOURCE);
      ++received[size_t(source)];
      copy_status_out(to, s);
      waitall_status_error(to, s);
    } else if (to != MPI_STATUS_IGNORE) {
      const MPI_Status &s = batch.statuses[size_t(k)];  // reported: the program wants statuses
      set_send_status(*to, s);
      waitall_status_error(to, s);
    }
    free_small(r, handles[i]);
    ++k;
  }
  return true;
}

int fast::waitall_general(int n, Request *const reqs[], MPI_Request reals[],
                          MPI_Status reported[], int rc, int count, MPI_Request handles[],
                          MPI_Status statuses[]) {
  Entry entry;
  if (rc != MPI_SUCCESS && reported == MPI_STATUSES_IGNORE) message_failed(rc);  // sends only
  RequestBatch &batch = request_batch();
  batch.pending.assign(reqs, reqs + n);
  batch.reals.assign(reals, reals + n);
  batch.statuses.assign(reported, reported + n);
  batch.indices.resize(size_t(n));
  for (int j = 0; j < n; ++j) batch.indices[size_t(j)] = j;
  batch.complete_waitall(rc);
  return on_Waitall(count, handles, statuses);  // hands out what is complete, waits for the rest
}

}  // namespace c3::mpi
