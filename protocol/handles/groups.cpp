// Groups are local objects: c3 records their members as MPI_COMM_WORLD ranks and builds them
// again from those at a restart.
#include "handles/groups.hpp"

#include "handles/handles.hpp"

namespace c3::mpi {

std::vector<int> world_ranks(MPI_Group real) {
  int n = 0;
  PMPI_Group_size(real, &n);
  std::vector<int> ranks(size_t(n > 0 ? n : 0)), world(ranks.size());
  for (int i = 0; i < n; ++i) ranks[size_t(i)] = i;
  MPI_Group world_group;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  if (n > 0) PMPI_Group_translate_ranks(real, n, ranks.data(), world_group, world.data());
  PMPI_Group_free(&world_group);
  return world;
}

MPI_Group group_of_world_ranks(const std::vector<int> &world) {
  MPI_Group world_group, group;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  PMPI_Group_incl(world_group, int(world.size()), world.data(), &group);
  PMPI_Group_free(&world_group);
  return group;
}

MPI_Group adopt_group(MPI_Group real) {
  if (real == MPI_GROUP_NULL || real == MPI_GROUP_EMPTY) return real;
  auto &groups = handles().groups;
  if (const MPI_Group app = groups.adopt_known(real, [](MPI_Group g) { PMPI_Group_free(&g); }))
    return app;
  return groups.add(real, GroupInfo{world_ranks(real)});
}

int free_group(MPI_Group *h) {
  auto &groups = handles().groups;
  if (!groups.find(*h)) return PMPI_Group_free(h);
  groups.release(*h, [](MPI_Group g) { PMPI_Group_free(&g); });
  *h = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

void recreate_groups() {
  handles().groups.for_each([](int h, auto &slot) {
    handles().groups.set_real(h, group_of_world_ranks(slot.info.world));
  });
}

}  // namespace c3::mpi
