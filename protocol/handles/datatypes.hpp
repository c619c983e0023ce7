// Derived datatypes across a checkpoint (handles/datatypes.cpp).
#pragma once
#include <mpi.h>

#include "handles/handle_state.hpp"

namespace c3::mpi {

// The MPICH type a recipe describes, committed if the program committed it.
MPI_Datatype build_datatype(const TypeInfo &recipe);
void recreate_datatypes();       // restart: every recorded type, older ones first
void capture_datatype_names();   // checkpoint
void drop_unnamed_datatypes();   // checkpoint: zombies nothing names any more

}  // namespace c3::mpi
