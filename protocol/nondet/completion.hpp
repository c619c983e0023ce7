// Calls that complete some of several requests, or test one: which ones complete is
// non-deterministic (MPI_Test, _Testany, _Testsome, _Testall, _Waitany, _Waitsome,
// MPI_Request_get_status). The generated wrapper (attribute `outcome=<kind>` in
// protocol/mpi_functions.txt) describes the call by its parameters' roles, `run_completion`
// finds the outcome (the log-or-replay decision: from MPICH, logged in NonDet-Log, or from the
// log of a replay, waiting for exactly the logged requests), and the wrapper hands it out, again
// by role: flag, index, outcount, index_array, status, status_array.
#pragma once
#include <mpi.h>

#include <vector>

namespace c3::mpi {

struct Completion {
  enum class Kind {
    Test,      // one request; a completed one is freed (unless persistent)
    Peek,      // one request, left as it is (MPI_Request_get_status)
    TestAny,
    TestSome,
    TestAll,
    WaitAny,
    WaitSome,
  };
  Completion(Kind kind, int count, MPI_Request *requests)
      : kind(kind), count(count), requests(requests) {}

  Kind kind;
  int count;
  MPI_Request *requests;  // `count` of them (one for Test and Peek)

  // The outcome (run_completion).
  bool none_active = false;  // nothing to complete: MPI's answer for inactive requests
  bool flag = false;         // a test succeeded (a wait always does)
  std::vector<int> done;     // indices of the requests completed, in the order MPI reports them

  // Output parameters by role.
  int index() const;                        // index: MPI_UNDEFINED when none
  int outcount() const;                     // outcount: MPI_UNDEFINED when nothing was active
  void copy_indices(int indices[]) const;   // index_array
  void deliver_one(MPI_Status *status);     // status: of the completed request
  void deliver_each(MPI_Status statuses[]); // status_array: of each completed one
};

// Numbers the call and finds its outcome: from the log when it is replayed (and waits for those
// requests), else from MPICH, logged in NonDet-Log. No number when no request is active.
void run_completion(Completion &c);

}  // namespace c3::mpi
