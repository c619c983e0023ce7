// MPI_Waitall over small messages only (requests whose header travels inline in the request's
// bounce buffer: built-in type, up to 8 KiB, not persistent, never cancelled): one PMPI_Waitall,
// then each request is finished in place (payload copied out, message counted, entry given back
// to the small-message slots) without the general completion path, which costs several times
// more per message. Anything unusual leaves the work to the general path. The wrapper's inline
// path (hooks/fast_paths.hpp) and the MPI_Waitall hook share it.
#pragma once
#include <mpi.h>

#include "state/protocol_state.hpp"

namespace c3::mpi {

enum class SmallWait {
  NotSmall,  // an active request is not a small message (or a receive elsewhere may need c3 to
             // post a payload meanwhile): nothing was done
  Done,      // every request completed and handed out; `rc` is MPI_Waitall's result
  General,   // completed in MPICH, but one needs more than counting (a message of another epoch
             // or mode, a split header, a failure): all were handed to the general completion,
             // whose MPI_Waitall loop finishes the call
};

// `reqs`, `reals` and `reported` have room for `count` entries (the caller's: the stack, or a
// batch's arrays).
SmallWait wait_all_small(int count, MPI_Request handles[], MPI_Status statuses[], Request *reqs[],
                         MPI_Request reals[], MPI_Status reported[], int &rc);

}  // namespace c3::mpi
