// How a hook receives a communicator or datatype: as the program's handle (what the protocol
// records: requests, registries and logs name objects by it, and it stays valid across a
// restart) and as MPICH's (what it passes to PMPI_). The generated wrappers fill both.
#pragma once
#include <mpi.h>

namespace c3::mpi {

struct CommArg {
  MPI_Comm app;
  MPI_Comm real;
};

struct TypeArg {
  MPI_Datatype app;
  MPI_Datatype real;
};

}  // namespace c3::mpi
