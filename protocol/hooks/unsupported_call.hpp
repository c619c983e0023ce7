// The one place the PMPI layer hears of MPI functions protocol/mpi_functions.txt does not list.
#pragma once
#include <mpi.h>

namespace c3::mpi {

// Called first by the wrapper of every such function (one-sided communication, MPI-IO, dynamic
// processes, persistent collectives, the MPI-4 large-count *_c calls, ...) with its communicator
// (MPI_COMM_NULL if it has none); the wrapper then passes the call to PMPI_ with MPICH's handles.
// Queries without state pass. Anything else creates state c3 cannot restore: it passes, but no
// checkpoint is taken after it, and calling it while a checkpoint is in progress is an error.
void unsupported_call(const char *function, MPI_Comm comm) noexcept;

}  // namespace c3::mpi
