// Error handlers across a checkpoint.
#pragma once

namespace c3::mpi {

void recreate_errhandlers();          // restart
void free_errhandlers_at_finalize();  // c3's own references

}  // namespace c3::mpi
