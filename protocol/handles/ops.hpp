// User-defined reduction operators across a checkpoint.
#pragma once
#include <mpi.h>

namespace c3::mpi {

void recreate_ops();  // restart
// The trampoline slot of a user-defined operator the program holds, or -1 (a predefined one).
int op_trampoline_slot(MPI_Op app);

}  // namespace c3::mpi
