// Waits and tests. Which request completes, and whether a test succeeds, is non-deterministic:
// in NonDet-Log the outcome of every such call is logged, and after a restart it is replayed
// (a logged completion is waited for; a logged failure returns at once).
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
namespace {

void empty_status(MPI_Status *status) {
  if (status == MPI_STATUS_IGNORE) return;
  make_status(*status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
}

bool active(MPI_Request h) {
  if (h == MPI_REQUEST_NULL) return false;
  return request_of(h).active;
}

MPI_Status *status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// Blocks until one of the active requests completes inside c3; returns its index or -1 when
// none is active.
int wait_for_any(int count, MPI_Request reqs[]) {
  for (;;) {
    bool any = false;
    std::vector<MPI_Request> reals;
    std::vector<int> where;
    for (int i = 0; i < count; ++i) {
      if (!active(reqs[i])) continue;
      any = true;
      Request &r = request_of(reqs[i]);
      if (test_request(r)) return i;
      if (r.real != MPI_REQUEST_NULL) {
        reals.push_back(r.real);
        where.push_back(i);
      }
    }
    if (!any) return -1;
    if (reals.empty()) fatal("restart diverged: waiting only for receives the logged run cancelled");
    int k = MPI_UNDEFINED;
    MPI_Status st{};
    if (split::must_poll()) {
      int flag = 0;
      PMPI_Testany(int(reals.size()), reals.data(), &k, &flag, &st);
      if (!flag) split::progress();
    } else {
      PMPI_Waitany(int(reals.size()), reals.data(), &k, &st);
    }
    if (k == MPI_UNDEFINED) continue;
    Request &r = request_of(reqs[where[size_t(k)]]);
    complete_real_request(r, st);
    if (r.done) return where[size_t(k)];  // else a split header: wait on for its payload
  }
}

}  // namespace

int on_Wait(MPI_Request *request, MPI_Status *status) noexcept {
  if (!active(*request)) {
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
    if (active(array_of_requests[i])) {
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
    if (active(array_of_requests[i]))
      deliver(array_of_requests[i], status_at(array_of_statuses, i));
    else
      empty_status(status_at(array_of_statuses, i));
  }
  return MPI_SUCCESS;
}

int on_Waitany(int count, MPI_Request array_of_requests[], int *indx,
               MPI_Status *status) noexcept {
  uint64_t call = next_call();
  int i = -1;
  if (replaying(call)) {
    const Outcome &o = replayed(call);
    if (!o.indices.empty()) {
      i = o.indices.front();
      wait_request(request_of(array_of_requests[i]));
    }
  } else {
    i = wait_for_any(count, array_of_requests);
    log_outcome(call, 1, i < 0 ? std::vector<int>{} : std::vector<int>{i});
  }
  if (i < 0) {
    *indx = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  *indx = i;
  deliver(array_of_requests[i], status);
  return MPI_SUCCESS;
}

int on_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                int array_of_indices[], MPI_Status array_of_statuses[]) noexcept {
  uint64_t call = next_call();
  std::vector<int> done;
  if (replaying(call)) {
    done = replayed(call).indices;
    for (int i : done) wait_request(request_of(array_of_requests[i]));
  } else {
    int first = wait_for_any(incount, array_of_requests);
    if (first >= 0)
      for (int i = 0; i < incount; ++i)
        if (active(array_of_requests[i]) && test_request(request_of(array_of_requests[i])))
          done.push_back(i);
    log_outcome(call, 1, done);
  }
  if (done.empty()) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  *outcount = int(done.size());
  for (size_t k = 0; k < done.size(); ++k) {
    array_of_indices[k] = done[k];
    deliver(array_of_requests[done[k]], status_at(array_of_statuses, int(k)));
  }
  return MPI_SUCCESS;
}

int on_Test(MPI_Request *request, int *flag, MPI_Status *status) noexcept {
  split::progress();  // a polling program lets MPI progress
  if (!active(*request)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  uint64_t call = next_call();
  Request &r = request_of(*request);
  if (replaying(call)) {
    *flag = replayed(call).flag;
    if (*flag) wait_request(r);
  } else {
    *flag = test_request(r) ? 1 : 0;
    log_outcome(call, *flag);
  }
  if (*flag) deliver(*request, status);
  return MPI_SUCCESS;
}

int on_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
               MPI_Status *status) noexcept {
  split::progress();  // a polling program lets MPI progress
  uint64_t call = next_call();
  int i = -1;
  bool any = false;
  for (int k = 0; k < count; ++k) any = any || active(array_of_requests[k]);
  if (!any) {
    *flag = 1;
    *indx = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (replaying(call)) {
    const Outcome &o = replayed(call);
    if (o.flag) {
      i = o.indices.front();
      wait_request(request_of(array_of_requests[i]));
    }
  } else {
    for (int k = 0; k < count && i < 0; ++k)
      if (active(array_of_requests[k]) && test_request(request_of(array_of_requests[k]))) i = k;
    log_outcome(call, i >= 0, i < 0 ? std::vector<int>{} : std::vector<int>{i});
  }
  *flag = i >= 0;
  *indx = i >= 0 ? i : MPI_UNDEFINED;
  if (i >= 0) deliver(array_of_requests[i], status);
  return MPI_SUCCESS;
}

int on_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                int array_of_indices[], MPI_Status array_of_statuses[]) noexcept {
  split::progress();  // a polling program lets MPI progress
  bool any = false;
  for (int k = 0; k < incount; ++k) any = any || active(array_of_requests[k]);
  if (!any) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  uint64_t call = next_call();
  std::vector<int> done;
  if (replaying(call)) {
    done = replayed(call).indices;
    for (int i : done) wait_request(request_of(array_of_requests[i]));
  } else {
    for (int i = 0; i < incount; ++i)
      if (active(array_of_requests[i]) && test_request(request_of(array_of_requests[i])))
        done.push_back(i);
    log_outcome(call, !done.empty(), done);
  }
  *outcount = int(done.size());
  for (size_t k = 0; k < done.size(); ++k) {
    array_of_indices[k] = done[k];
    deliver(array_of_requests[done[k]], status_at(array_of_statuses, int(k)));
  }
  return MPI_SUCCESS;
}

int on_Testall(int count, MPI_Request array_of_requests[], int *flag,
               MPI_Status array_of_statuses[]) noexcept {
  split::progress();  // a polling program lets MPI progress
  uint64_t call = next_call();
  bool all = true;
  if (replaying(call)) {
    all = replayed(call).flag;
    if (all)
      for (int i = 0; i < count; ++i)
        if (active(array_of_requests[i])) wait_request(request_of(array_of_requests[i]));
  } else {
    for (int i = 0; i < count; ++i)
      if (active(array_of_requests[i]) && !test_request(request_of(array_of_requests[i])))
        all = false;
    log_outcome(call, all);
  }
  *flag = all;
  if (!all) return MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    if (active(array_of_requests[i]))
      deliver(array_of_requests[i], status_at(array_of_statuses, i));
    else
      empty_status(status_at(array_of_statuses, i));
  }
  return MPI_SUCCESS;
}

int on_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) noexcept {
  split::progress();  // a polling program lets MPI progress
  if (!active(request)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  uint64_t call = next_call();
  Request &r = request_of(request);
  if (replaying(call)) {
    *flag = replayed(call).flag;
    if (*flag) wait_request(r);
  } else {
    *flag = test_request(r);
    log_outcome(call, *flag);
  }
  if (*flag) copy_request_status_out(r, status);
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
