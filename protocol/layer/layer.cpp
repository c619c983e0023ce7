#include "layer/layer.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "messages/payload_window.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "io/output_commit.hpp"

namespace c3::mpi {

int g_depth = 0;
uint64_t g_entries = 0;
bool g_attention = false;
uint64_t g_hook_first_call = 0;

uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void update_attention() {
  g_attention = rt().initialized && !rt().finalized &&
                (state().mode != Mode::Run || rt().has_orphans);
}

void enter_slow() {
  if (!rt().initialized || rt().finalized) return;
  if (state().mode == Mode::NonDetLog || state().mode == Mode::RecvOnlyLog)
    progress();
  else if (rt().has_orphans)
    complete_orphans(false);
}

void leave_slow() {
  // Only here: a hook may still hold a reference into the replay log.
  if (state().mode == Mode::Restore) maybe_end_restore();
}

void fatal(const std::string &message) {
  std::fprintf(stderr, "c3: error: %s\n", message.c_str());
  std::fflush(stderr);
  output::release();  // this rank's own error, as with MPI_Abort: what it printed is shown
  // mpiexec stops forwarding output once the abort tears the job down: give it the message first.
  if (rt().initialized && !rt().finalized) {
    usleep(200000);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::exit(2);
}

void message_failed(int error) {
  // The class's text: MPICH's own for the code carries a stack of its internal calls and handles.
  int error_class = error;
  PMPI_Error_class(error, &error_class);
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  PMPI_Error_string(error_class, text, &length);
  fatal(std::string("a message of the program failed in MPI (") + text +
        "); c3 does not return errors of messages to the program yet");
}

void fatal_everywhere(const std::string &message) {
  if (rt().rank == 0) {
    std::fprintf(stderr, "c3: error: %s\n", message.c_str());
    std::fflush(stderr);
  }
  if (rt().initialized && !rt().finalized) {
    rt().finalized = true;
    payload_window::destroy();  // collective: every rank is here
    PMPI_Finalize();
  }
  std::exit(2);
}

}  // namespace c3::mpi
