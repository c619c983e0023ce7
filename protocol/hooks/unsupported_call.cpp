#include "hooks/unsupported_call.hpp"

#include <cstring>
#include <string>

#include "layer/layer.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {
namespace {

bool listed(const char *function, const char *const *names) {
  for (; *names; ++names)
    if (std::strcmp(function, *names) == 0) return true;
  return false;
}

// No state a checkpoint would need, no messages.
const char *const kHarmless[] = {
    "MPI_Type_size", "MPI_Type_size_x", "MPI_Type_get_extent", "MPI_Type_get_extent_x",
    "MPI_Type_get_true_extent", "MPI_Type_get_true_extent_x", "MPI_Type_get_name",
    "MPI_Get_processor_name", "MPI_Get_version", "MPI_Get_library_version", "MPI_Error_string",
    "MPI_Error_class", "MPI_Query_thread", "MPI_Is_thread_main", "MPI_Get_address",
    "MPI_Aint_add", "MPI_Aint_diff", "MPI_Pcontrol", "MPI_Comm_get_attr", "MPI_Comm_test_inter",
    "MPI_Comm_compare", "MPI_Comm_get_name", "MPI_Comm_group", "MPI_Group_size", "MPI_Group_rank",
    "MPI_Group_translate_ranks", "MPI_Group_compare", "MPI_Group_free", "MPI_Op_commutative",
    "MPI_Status_set_elements", "MPI_Status_set_elements_x", "MPI_Status_set_cancelled",
    "MPI_Pack", "MPI_Unpack", "MPI_Pack_size", "MPI_Reduce_local", "MPI_Comm_get_errhandler",
    "MPI_Comm_set_errhandler", "MPI_Errhandler_free", "MPI_Comm_call_errhandler", nullptr};

const char *const kBlockingCollectives[] = {
    "MPI_Barrier", "MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",
    "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw",
    "MPI_Reduce", "MPI_Allreduce", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan",
    "MPI_Exscan", nullptr};

// Other collective calls c3 passes through (the communicator argument is the one they span).
const char *const kOtherCollectives[] = {
    "MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type",
    "MPI_Comm_create", "MPI_Cart_create", "MPI_Cart_sub", "MPI_Graph_create",
    "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent", "MPI_Intercomm_create",
    "MPI_Intercomm_merge", "MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared",
    "MPI_Win_create_dynamic", "MPI_File_open", nullptr};

// Every member arrives before MPICH may block in a collective: a member waiting for the others
// keeps serving payload receives (split_transfer.hpp) that a late member's MPI_Send may need.
// Nonblocking on every rank alike (blocking and nonblocking collectives do not match).
void arrive_together(MPI_Request &request) {
  MPI_Status ignored;
  split::wait(request, ignored);
}

// A collective must not span a recovery line: some members would re-execute it after a restart
// and the others not. Every member contributes its epoch; differing epochs end the job.
void guard_collective(const char *function, MPI_Comm comm) {
  ProtocolState &st = state();
  long long mine[2] = {(long long)st.epoch, -(long long)st.epoch}, all[2] = {0, 0};
  MPI_Request request;
  PMPI_Iallreduce(mine, all, 2, MPI_LONG_LONG, MPI_MAX, comm, &request);
  arrive_together(request);
  int members = 0;
  PMPI_Comm_size(comm, &members);
  // Every member knows: with all ranks in it the job ends cleanly, no abort racing the message.
  void (*report)(const std::string &) = members == rt().size ? fatal_everywhere : fatal;
  if (all[0] != -all[1])
    report(std::string(function) + " spans a checkpoint: some ranks call it before taking " +
          "checkpoint " + std::to_string(checkpoint_number(uint64_t(all[0]))) +
          " and others after; c3 does not support collectives across a checkpoint yet (move the " +
          "pragma so every rank checkpoints on the same side of the collective)");
}

}  // namespace

void unsupported_call(const char *function, MPI_Comm comm) noexcept {
  Runtime &r = rt();
  if (g_depth > 0 || !r.initialized || r.finalized) return;  // MPICH's own nested calls
  if (listed(function, kHarmless)) return;
  Entry entry;
  if (listed(function, kBlockingCollectives) && comm != MPI_COMM_NULL) {
    guard_collective(function, comm);
    return;
  }
  if (comm != MPI_COMM_NULL && listed(function, kOtherCollectives)) {
    MPI_Request request;
    PMPI_Ibarrier(comm, &request);
    arrive_together(request);
  }
  Mode mode = state().mode;
  if (mode == Mode::NonDetLog || mode == Mode::RecvOnlyLog || mode == Mode::Restore)
    fatal(std::string(function) + " called while checkpoint " +
          std::to_string(checkpoint_number(state().epoch)) + " is in progress (" +
          mode_name(mode) + "): c3 does not support " + function + " yet");
  if (!r.tainted_by) r.tainted_by = function;
}

}  // namespace c3::mpi
