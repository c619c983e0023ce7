// Attributes across a checkpoint (handles/attributes.cpp).
#pragma once
#include <mpi.h>

#include "handles/handle_state.hpp"

namespace c3::mpi {

// Checkpoint: the attributes MPICH holds for an object, by the program's keyvals.
void capture_attributes(CommInfo &comm, MPI_Comm real);
void capture_attributes(TypeInfo &type, MPI_Datatype real);
// Restart: stored again (no copy or delete callback runs).
void restore_attributes(const CommInfo &comm, MPI_Comm real);
void restore_attributes(const TypeInfo &type, MPI_Datatype real);
void recreate_keyvals();

}  // namespace c3::mpi
