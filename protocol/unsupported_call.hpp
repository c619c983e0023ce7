// The one place the PMPI layer hears of MPI functions the C3 protocol does not handle.
#pragma once

namespace c3::mpi {

// Called first by the wrapper of every function mpi.h declares that protocol/mpi_functions.txt
// does not list (MPI_Bcast, MPI_Comm_split, MPI_File_open, the MPI-4 large-count *_c calls, ...);
// the wrapper then passes the call to PMPI_ unchanged.
//
// For now it does nothing: no protocol exists, so such a call cannot disturb anything. Once the
// protocol piggybacks on messages, virtualizes handles and logs non-determinism, a call it does
// not understand can corrupt a checkpoint silently; this is where c3 will then fail loudly
// (name the function, abort) instead, or record the call so a restart can replay it.
void unsupported_call(const char *function) noexcept;

}  // namespace c3::mpi
