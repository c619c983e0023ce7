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

namespace {

// Scratch arrays of MPI_Waitall, kept between calls: a window of small messages paid several
// allocations per call for them.
struct WaitallScratch {
  std::vector<Request *> pending, arrived;
  std::vector<MPI_Request> reals;
  std::vector<int> indices;
  std::vector<MPI_Status> statuses;
};
WaitallScratch g_waitall;

// Processes `done` completions MPICH reported at once (it freed all of them): none may be
// tested again meanwhile, and they go in posting order (split::settle_earlier_receives looks
// back), which is usually the order they were given in.
void complete_arrived(WaitallScratch &w, int done) {
  if (done == MPI_UNDEFINED || done <= 0) return;
  w.arrived.clear();
  for (int k = 0; k < done; ++k) {
    Request *r = w.pending[size_t(w.indices[size_t(k)])];
    r->real = MPI_REQUEST_NULL;
    std::memcpy(r->status.words, &w.statuses[size_t(k)], sizeof(MPI_Status));
    w.arrived.push_back(r);
  }
  auto by_posting = [](const Request *a, const Request *b) { return a->posting < b->posting; };
  if (!std::is_sorted(w.arrived.begin(), w.arrived.end(), by_posting))
    std::sort(w.arrived.begin(), w.arrived.end(), by_posting);
  for (Request *r : w.arrived) {
    MPI_Status st;
    std::memcpy(&st, r->status.words, sizeof st);
    complete_real_request(*r, st);
  }
}

}  // namespace

int on_Waitall(int count, MPI_Request array_of_requests[],
               MPI_Status array_of_statuses[]) noexcept {
  // All at once, so the payload of every split message is posted as soon as its header is in.
  // The MPICH requests are read again each round: completing one request may settle another's
  // header (split::settle_earlier_receives), which gives that one a new MPICH request.
  WaitallScratch &w = g_waitall;
  w.pending.clear();
  for (int i = 0; i < count; ++i)
    if (array_of_requests[i] != MPI_REQUEST_NULL) {
      Request &r = request_of(array_of_requests[i]);
      if (r.active && !r.done) w.pending.push_back(&r);
    }
  for (;;) {
    for (size_t k = 0; k < w.pending.size();) {
      if (w.pending[k]->done) {
        w.pending[k] = w.pending.back();
        w.pending.pop_back();
      } else {
        if (w.pending[k]->real == MPI_REQUEST_NULL) wait_request(*w.pending[k]);  // diverged restart
        ++k;
      }
    }
    if (w.pending.empty()) break;
    const size_t n = w.pending.size();
    w.reals.resize(n);
    w.indices.resize(n);
    w.statuses.resize(n);
    size_t awaiting_here = 0;
    for (size_t k = 0; k < n; ++k) {
      w.reals[k] = w.pending[k]->real;
      w.indices[k] = int(k);
      awaiting_here += w.pending[k]->awaits_header;
    }
    if (!split::must_poll()) {
      // No split header to wait for (none ever, or all of them came): one MPICH call.
      PMPI_Waitall(int(n), w.reals.data(), w.statuses.data());
      complete_arrived(w, int(n));  // a split header for a small buffer: waited for next
      continue;
    }
    int done = 0;
    if (awaiting_here < rt().awaiting.size()) {  // a receive outside this call may need c3
      PMPI_Testsome(int(n), w.reals.data(), &done, w.indices.data(), w.statuses.data());
      if (done == 0) split::progress();
    } else {
      PMPI_Waitsome(int(n), w.reals.data(), &done, w.indices.data(), w.statuses.data());
    }
    complete_arrived(w, done);
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
