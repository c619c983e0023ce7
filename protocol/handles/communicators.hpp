// Communicators across a checkpoint (handles/communicators.cpp).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "handles/handle_state.hpp"

namespace c3::mpi {

// What c3 records of a communicator MPICH created (members, topology, this rank), all but gid.
CommInfo describe_comm(MPI_Comm real);
// The gid of a communicator made by call `seq` on the communicator `parent` (every member of
// `parent` numbers its collective calls alike), and of one made by a call that is not numbered
// on a parent (`what` tells which call; a, b: the groups; occurrences of the same key count).
uint64_t numbered_gid(uint64_t parent, uint64_t seq, const CommInfo &c);
uint64_t keyed_gid(uint64_t what, uint64_t parent, const std::vector<int> &a,
                   const std::vector<int> &b, int tag);
// The program's handle for a new MPICH communicator (MPI_COMM_NULL stays null).
MPI_Comm adopt_new_comm(MPI_Comm real, CommInfo info);
// A communicator the program freed leaves the table once no pending request uses it, and stays
// a ghost (handles/handle_state.hpp) until every member said it freed it.
void retire_comm(MPI_Comm app);
void retire_unused_comms();
// MPI_COMM_WORLD, MPI_COMM_SELF, every communicator in the table and every ghost.
void for_each_held_comm(const std::function<void(CommInfo &, bool ghost)> &f);
void capture_comm_properties();
// An MPICH communicator as `c` describes it (collective over its members).
MPI_Comm build_comm(const CommInfo &c);
// Restart: builds every communicator this rank takes part in, in gid order: the table's (their
// MPICH communicators are set), ghosts (freed again at once) and those of `from_log`. Returns
// MPICH's communicators (and their bulk duplicates) by gid.
std::map<uint64_t, std::pair<MPI_Comm, MPI_Comm>> recreate_comms(
    const std::vector<const CommInfo *> &from_log);

}  // namespace c3::mpi
