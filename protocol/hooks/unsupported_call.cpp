#include "hooks/unsupported_call.hpp"

#include <cstring>
#include <string>

#include "layer/layer.hpp"
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
    "MPI_Get_processor_name", "MPI_Get_version", "MPI_Get_library_version", "MPI_Error_string",
    "MPI_Error_class", "MPI_Is_thread_main", "MPI_Get_address", "MPI_Address", "MPI_Aint_add",
    "MPI_Aint_diff", "MPI_Pcontrol", "MPI_Status_set_cancelled", "MPI_Comm_get_parent", nullptr};

}  // namespace

void unsupported_call(const char *function, MPI_Comm) noexcept {
  Runtime &r = rt();
  if (g_depth > 0 || !r.initialized || r.finalized) return;  // MPICH's own nested calls
  if (listed(function, kHarmless)) return;
  Entry entry;
  Mode mode = state().mode;
  if (mode == Mode::NonDetLog || mode == Mode::RecvOnlyLog || mode == Mode::Restore)
    fatal(std::string(function) + " called while checkpoint " +
          std::to_string(checkpoint_number(state().epoch)) + " is in progress (" +
          mode_name(mode) + "): c3 does not support " + function + " yet");
  if (!r.tainted_by) r.tainted_by = function;
}

}  // namespace c3::mpi
