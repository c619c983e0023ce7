// Waits whose outcome is deterministic (MPI_Wait, MPI_Waitall), freeing and cancelling requests.
// Tests and waits for one of several requests are generated skeletons (nondet/completion.hpp).
#include <algorithm>
#include <cstring>
#include <vector>

#include "layer/layer.hpp"
#include "messages/requests.hpp"
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
  std::vector<Request *> pending;
  for (int i = 0; i < count; ++i)
    if (request_active(array_of_requests[i])) {
      Request &r = request_of(array_of_requests[i]);
      if (!r.done) pending.push_back(&r);
    }
  std::vector<MPI_Request> reals;
  std::vector<int> indices;
  std::vector<MPI_Status> statuses;
  std::vector<Request *> arrived;
  // Processes completions MPICH reported at once (it freed all of them): none may be tested
  // again meanwhile, and they go in posting order (split::settle_earlier_receives looks back).
  auto complete_arrived = [&](int done) {
    arrived.clear();
    for (int k = 0; k < done && done != MPI_UNDEFINED; ++k) {
      Request *r = pending[size_t(indices[size_t(k)])];
      r->real = MPI_REQUEST_NULL;
      r->status = SavedStatus{};
      std::memcpy(r->status.words, &statuses[size_t(k)], sizeof(MPI_Status));
      arrived.push_back(r);
    }
    std::sort(arrived.begin(), arrived.end(),
              [](const Request *a, const Request *b) { return a->posting < b->posting; });
    for (Request *r : arrived) {
      MPI_Status st{};
      std::memcpy(&st, r->status.words, sizeof st);
      complete_real_request(*r, st);
    }
  };
  for (;;) {
    for (size_t k = 0; k < pending.size();) {
      if (pending[k]->done) {
        pending[k] = pending.back();
        pending.pop_back();
      } else {
        if (pending[k]->real == MPI_REQUEST_NULL) wait_request(*pending[k]);  // diverged restart
        ++k;
      }
    }
    if (pending.empty()) break;
    if (!split::must_poll()) {
      // No split header to wait for (none ever, or all of them came): one MPICH call.
      reals.clear();
      for (Request *r : pending) reals.push_back(r->real);
      statuses.resize(reals.size());
      indices.resize(reals.size());
      for (size_t k = 0; k < reals.size(); ++k) indices[k] = int(k);
      PMPI_Waitall(int(reals.size()), reals.data(), statuses.data());
      complete_arrived(int(reals.size()));  // a split header for a small buffer: waited for next
      continue;
    }
    reals.clear();
    size_t awaiting_here = 0;
    for (Request *r : pending) {
      reals.push_back(r->real);
      awaiting_here += r->awaits_header;
    }
    indices.resize(reals.size());
    statuses.resize(reals.size());
    int done = 0;
    if (awaiting_here < rt().awaiting.size()) {  // a receive outside this call may need c3
      PMPI_Testsome(int(reals.size()), reals.data(), &done, indices.data(), statuses.data());
      if (done == 0) split::progress();
    } else {
      PMPI_Waitsome(int(reals.size()), reals.data(), &done, indices.data(), statuses.data());
    }
    complete_arrived(done);
  }
  for (int i = 0; i < count; ++i) {
    if (request_active(array_of_requests[i]))
      deliver(array_of_requests[i], status_at(array_of_statuses, i));
    else
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
