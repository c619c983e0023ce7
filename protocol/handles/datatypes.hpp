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
// MPI_Finalize: gives MPICH back every type c3 holds. MPICH 4.0.2 loses count of the types
// MPI_Type_get_contents returns, so a type c3 described stays alive otherwise and MPICH warns
// ("yaksa: N leaked handle pool objects") at the end of a program that never freed it.
void release_datatypes_at_finalize();

}  // namespace c3::mpi
