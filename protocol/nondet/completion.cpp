// Tests and waits for one of several requests (nondet/completion.hpp).
#include "nondet/completion.hpp"

#include "layer/layer.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "nondet/nondet.hpp"

namespace c3::mpi {
namespace {

bool is_test(Completion::Kind kind) {
  return kind != Completion::Kind::WaitAny && kind != Completion::Kind::WaitSome;
}

// Blocks until one of the active requests completes inside c3; returns the lowest index of a
// complete one, or -1 when none is active. MPICH may report several at once: the others stay
// complete inside c3 for the next call.
int wait_for_any(int count, MPI_Request reqs[]) {
  RequestBatch &batch = request_batch();
  for (;;) {
    bool any = false;
    for (int i = 0; i < count; ++i) {
      if (!request_active(reqs[i])) continue;
      any = true;
      if (request_of(reqs[i]).done) return i;
    }
    if (!any) return -1;
    batch.gather(count, reqs);
    if (!batch.collect_reals())
      fatal("restart diverged: waiting only for receives the logged run cancelled");
    batch.wait_some();  // a split header: waited for on the next round
  }
}

// MPICH's outcome, for a call that is not replayed.
void decide(Completion &c) {
  MPI_Request *reqs = c.requests;
  switch (c.kind) {
    case Completion::Kind::Test:
    case Completion::Kind::Peek:
      c.flag = test_request(request_of(reqs[0]));
      if (c.flag) c.done = {0};
      break;
    case Completion::Kind::TestAny:
    case Completion::Kind::TestSome:
    case Completion::Kind::TestAll: {
      // Every one is tested, in one MPICH call; those found complete stay complete inside c3
      // until a later call hands them out (MPI_Testany hands out one, MPI_Testall all or none).
      RequestBatch &batch = request_batch();
      batch.gather(c.count, reqs);
      batch.test_once();
      bool all = true;
      for (int i = 0; i < c.count; ++i) {
        if (!request_active(reqs[i])) continue;
        if (request_of(reqs[i]).done) {
          if (c.kind == Completion::Kind::TestSome || c.done.empty()) c.done.push_back(i);
        } else {
          all = false;
        }
      }
      c.flag = c.kind == Completion::Kind::TestAll ? all : !c.done.empty();
      if (c.kind == Completion::Kind::TestAll) c.done.clear();
      break;
    }
    case Completion::Kind::WaitAny:
      c.done = {wait_for_any(c.count, reqs)};
      c.flag = true;
      break;
    case Completion::Kind::WaitSome: {
      wait_for_any(c.count, reqs);  // then every one complete by now, in index order
      RequestBatch &batch = request_batch();
      batch.gather(c.count, reqs);
      batch.test_once();
      for (int i = 0; i < c.count; ++i)
        if (request_active(reqs[i]) && request_of(reqs[i]).done) c.done.push_back(i);
      c.flag = true;
      break;
    }
  }
}

}  // namespace

void run_completion(Completion &c) {
  if (is_test(c.kind)) split::progress();  // a polling program lets MPI progress
  c.none_active = true;
  for (int i = 0; i < c.count; ++i)
    c.none_active = c.none_active && !request_active(c.requests[i]);
  if (c.none_active) {
    c.flag = true;
    return;
  }
  const uint64_t call = next_call();
  if (replaying(call)) {
    const Outcome &o = replayed(call);
    c.flag = o.flag;
    c.done = o.indices;
    for (int i : c.done) wait_request(request_of(c.requests[i]));
  } else {
    decide(c);
    log_outcome(call, c.flag, c.done);
  }
  if (c.kind == Completion::Kind::TestAll && c.flag) {
    c.done.clear();
    for (int i = 0; i < c.count; ++i)
      if (request_active(c.requests[i])) {
        wait_request(request_of(c.requests[i]));  // done already, or logged as done
        c.done.push_back(i);
      }
  }
}

int Completion::index() const { return done.empty() ? MPI_UNDEFINED : done.front(); }

int Completion::outcount() const { return none_active ? MPI_UNDEFINED : int(done.size()); }

void Completion::copy_indices(int indices[]) const {
  for (size_t k = 0; k < done.size(); ++k) indices[k] = done[k];
}

void Completion::deliver_one(MPI_Status *status) {
  if (none_active) return empty_status(status);
  if (done.empty()) return;
  MPI_Request &h = requests[done.front()];
  if (kind == Kind::Peek)
    copy_request_status_out(request_of(h), status);
  else
    deliver(h, status);
}

void Completion::deliver_each(MPI_Status statuses[]) {
  if (kind == Kind::TestAll) {  // a status for every request, at its own index
    if (!flag) return;
    std::vector<bool> completed(size_t(count), false);
    for (int i : done) completed[size_t(i)] = true;
    for (int i = 0; i < count; ++i) {
      if (completed[size_t(i)])
        deliver(requests[i], status_at(statuses, i));
      else
        empty_status(status_at(statuses, i));
    }
    return;
  }
  for (size_t k = 0; k < done.size(); ++k)
    deliver(requests[done[k]], status_at(statuses, int(k)));
}

}  // namespace c3::mpi
