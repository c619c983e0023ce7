// MPI_Waitall over small messages only (requests whose header travels inline in the request's
// bounce buffer: built-in type, up to 8 KiB, not persistent, never cancelled): one PMPI_Waitall,
// then each request is finished in place (payload copied out, message counted, entry given back
// to the small-message slots) without the general completion path, which costs several times
// more per message. MPI_Wait and MPI_Test of one such request likewise. Anything unusual leaves
// the work to the general path. MPI_Waitsome, MPI_Testany, MPI_Testsome and MPI_Testall
// likewise, in Run mode only (their outcomes are not logged then). The wrappers'
// inline paths (hooks/fast_paths.hpp) and the MPI_Waitall hook share it.
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
// The requests of an MPI_Waitsome, _Testany, _Testsome or _Testall, at the program's indices:
// the lane's request and its MPICH request, or null and MPI_REQUEST_NULL for the program's
// MPI_REQUEST_NULL. The calls point `reqs` and `reals` at the lane's polled set, which is kept
// from one call to the next while no lane entry changes (a program polling one window gathers it
// once). `reported` is MPICH's statuses, one per completion (MPI_Testall's per index, packed per
// completion before the general completion takes them), `completed` the indices MPICH completed
// (`done` of them); both have room for `count` entries (the wrapper's stack).
struct SmallSet {
  Request **reqs;
  MPI_Request *reals;
  MPI_Status *reported;
  int *completed;
  int done = 0;
};
// Each returns SmallWait::Done with the call's outputs set, or SmallWait::General after MPICH
// completed `set.done` requests of which one needs the general completion (nothing handed out;
// fast::set_general takes them over), or SmallWait::NotSmall (nothing done).
SmallWait test_any_small(int count, MPI_Request handles[], int &index, int &flag,
                         MPI_Status *status, SmallSet &set, int &rc);
// MPI_Waitsome (`wait`) or MPI_Testsome: MPICH writes the program's `indices` itself.
SmallWait some_small(bool wait, int count, MPI_Request handles[], int &outcount, int indices[],
                     MPI_Status statuses[], SmallSet &set, int &rc);
SmallWait test_all_small(int count, MPI_Request handles[], int &flag, MPI_Status statuses[],
                         SmallSet &set, int &rc);
// Sets the four calls above gathered anew rather than kept (the tests' evidence).
extern uint64_t g_set_gathers;
// After SmallWait::General: the requests, done in MPICH with result `rc`, go to the general
// completion (a failed call of sends only ends the job with MPI's reason).
void hand_to_general(const SmallRequests &small, int rc);

}  // namespace c3::mpi
