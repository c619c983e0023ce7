// Groups as MPI_COMM_WORLD ranks.
#pragma once
#include <mpi.h>

#include <vector>

namespace c3::mpi {

// The members of an MPICH group as MPI_COMM_WORLD ranks, in group order.
std::vector<int> world_ranks(MPI_Group real);
// An MPICH group of those MPI_COMM_WORLD ranks (the caller frees it).
MPI_Group group_of_world_ranks(const std::vector<int> &world);
// Restart: every group the program holds, built again.
void recreate_groups();

}  // namespace c3::mpi
