// User-defined reduction operators across a checkpoint.
#pragma once

namespace c3::mpi {

void recreate_ops();  // restart

}  // namespace c3::mpi
