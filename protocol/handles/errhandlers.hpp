// Error handlers across a checkpoint.
#pragma once

namespace c3::mpi {

void recreate_errhandlers();          // restart
// Those the program freed and no communicator uses any more leave (at a free, at a checkpoint).
void release_unused_errhandlers();
void free_errhandlers_at_finalize();  // c3's own references

}  // namespace c3::mpi
