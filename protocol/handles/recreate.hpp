// The program's MPI objects at a checkpoint (what MPICH knows of them is read into c3's records)
// and at a restart (every object is built again behind the same handle).
#pragma once
#include "state/protocol_state.hpp"

namespace c3::mpi {

void capture_handle_properties();
// Also builds the communicators `replay` says this rank created after the checkpoint
// (rt().precreated), collectively with the ranks that hold them.
void recreate_handles(const CheckpointLog &replay);

}  // namespace c3::mpi
