// MPI_Waitall over small messages only (requests whose header travels inline in the request's
// bounce buffer: built-in type, up to 8 KiB, not persistent, never cancelled): one PMPI_Waitall,
// then each request is finished in place (payload copied out, message counted, entry given back
// to the small-message slots) without the general completion path, which costs several times
// more per message. MPI_Wait and MPI_Test of one such request likewise. Anything unusual leaves
// the work to the general path. The wrappers' inline paths (hooks/fast_paths.hpp) and the
// MPI_Waitall hook share it.
#pragma once
#include <mpi.h>

#include "state/protocol_state.hpp"

namespace c3::mpi {

enum class SmallWait {
  NotSmall,  // an active request is not a small message (or a receive elsewhere may need c3 to
             // post a payload meanwhile): nothing was done
  Done,      // every request completed and handed out; `rc` is MPI_Waitall's result
  General,   // completed in MPICH, but one needs more than counting (a message of another epoch
             // or mode, a split header, a failure): the caller hands them over inside its Entry
             // (hand_to_general), then MPI_Waitall's general loop finishes the call
};

// The small requests of one MPI_Waitall: arrays with room for `count` entries (the caller's: the
// wrapper's stack, or the hook's batch of its nesting level), `n` of them used; `arrived` and
// `round` are room for the rounds of PMPI_Waitsome.
struct SmallRequests {
  Request **reqs;
  MPI_Request *reals;
  MPI_Status *reported;
  int *arrived;
  MPI_Status *round;
  int n = 0;
  bool statuses_reported = false;  // MPICH filled `reported` (there is a receive, or the
                                   // program wants statuses)
};

SmallWait wait_all_small(int count, MPI_Request handles[], MPI_Status statuses[],
                         SmallRequests &small, int &rc);
// MPI_Wait of `handle`, the same way: `reported` is what PMPI_Wait gave (rc its result), which
// after SmallWait::General the caller completes inside its Entry (complete_real_request).
SmallWait wait_small(MPI_Request &handle, MPI_Status *status, MPI_Status &reported, int &rc);
// MPI_Test of `handle` (Run mode only: its outcome is not logged): SmallWait::Done with `flag`
// 0 when the message is still in flight; after SmallWait::General, PMPI_Test's `flag`,
// `reported` and rc go to the general completion as with wait_small.
SmallWait test_small(MPI_Request &handle, int &flag, MPI_Status *status, MPI_Status &reported,
                     int &rc);
// After SmallWait::General: the requests, done in MPICH with result `rc`, go to the general
// completion (a failed call of sends only ends the job with MPI's reason).
void hand_to_general(const SmallRequests &small, int rc);

}  // namespace c3::mpi
