// MPI_Waitall over small messages only (requests the small-message path posted: built-in type,
// header inline): one PMPI_Waitall, then each request is finished in place (payload copied out,
// message counted, entry freed) without the general completion path, which costs several times
// more per message. Anything unusual leaves the work to the general path.
#pragma once
#include <mpi.h>

namespace c3::mpi {

// Completes all of `handles` and returns true when every active one is a small message (and
// no split header may need c3 meanwhile); returns false having changed nothing, or having
// handed requests that need more (a message of another epoch, a split header) to the general
// path with their MPICH part done, when MPI_Waitall's general loop must finish the call.
bool wait_all_small(int count, MPI_Request handles[], MPI_Status statuses[]);

}  // namespace c3::mpi
