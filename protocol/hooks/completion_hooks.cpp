// Waits whose outcome is deterministic (MPI_Wait, MPI_Waitall), freeing and cancelling requests.
// Tests and waits for one of several requests are generated skeletons (nondet/completion.hpp).
#include <algorithm>
#include <cstring>
#include <vector>

#include "layer/layer.hpp"
#include "messages/requests.hpp"
#include "messages/small_completion.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"
#include "mpi_hooks.hpp"
#include "nondet/nondet.hpp"

namespace c3::mpi {
int on_Wait(MPI_Request *request, MPI_Status *status) noexcept {
  if (!request_active(*request)) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  wait_request(request_of(*request));
  deliver(*request, status);
  return MPI_SUCCESS;
}

int on_Waitall(int count, MPI_Request array_of_requests[],
               MPI_Status array_of_statuses[]) noexcept {
  // All at once, so the payload of every split message is posted as soon as its header is in.
  // The MPICH requests are read again each round: completing one request may settle another's
  // header (split::settle_earlier_receives), which gives that one a new MPICH request.
  RequestBatch &batch = request_batch();
  if (count > 0) {
    batch.small_reqs.resize(size_t(count));
    batch.small_reals.resize(size_t(count));
    batch.small_reported.resize(size_t(count));
    batch.small_arrived.resize(size_t(count));
    batch.small_round.resize(size_t(count));
    SmallRequests small{batch.small_reqs.data(), batch.small_reals.data(),
                        batch.small_reported.data(), batch.small_arrived.data(),
                        batch.small_round.data()};
    int rc = MPI_SUCCESS;
    switch (wait_all_small(count, array_of_requests, array_of_statuses, small, rc)) {
      case SmallWait::NotSmall: break;
      case SmallWait::Done: return rc;
      case SmallWait::General: hand_to_general(small, rc); break;
    }
  }
  batch.gather(count, array_of_requests);
  for (;;) {
    for (Request *r : batch.pending)
      if (!r->done && r->real == MPI_REQUEST_NULL) wait_request(*r);  // diverged restart
    if (!batch.collect_reals()) break;
    if (!split::must_poll()) {
      // No split header to wait for (none ever, or all of them came): one MPICH call.
      const int n = int(batch.reals.size());
      // A split header for a small buffer: its payload is waited for next round.
      batch.complete_waitall(PMPI_Waitall(n, batch.reals.data(), batch.statuses.data()));
      continue;
    }
    batch.wait_some();
  }
  for (int i = 0; i < count; ++i) {
    if (request_active(array_of_requests[i])) {
      MPI_Status st;
      std::memcpy(&st, request_of(array_of_requests[i]).status.words, sizeof st);
      deliver(array_of_requests[i], status_at(array_of_statuses, i));
      waitall_status_error(status_at(array_of_statuses, i), st);
    } else
      empty_status(status_at(array_of_statuses, i));
  }
  return MPI_SUCCESS;
}

int on_Request_free(MPI_Request *request) noexcept {
  Request &r = request_of(*request);
  if (r.active && !r.done)
    orphan_request(*request);  // still completes (and is counted) inside c3
  else
    free_request(*request);
  return MPI_SUCCESS;
}

int on_Cancel(MPI_Request *request) noexcept {
  return cancel_request(request_of(*request));
}

}  // namespace c3::mpi
