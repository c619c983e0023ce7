// Shared helpers of the protocol unit tests: saving and restoring the protocol's global state
// around a test, and running a scenario in a child process (for paths that end the process).
#pragma once
#include <mpi.h>

#include <string>

#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi::test {

// The protocol state is process-global and MPI_Finalize still runs the protocol on it: every
// test that changes it puts it back as it was (the request table's free-slot list included).
class StateGuard {
 public:
  StateGuard() : saved_(state()) {}
  ~StateGuard() {
    state() = saved_;
    requests_restored();
    update_attention();
  }
  StateGuard(const StateGuard &) = delete;
  StateGuard &operator=(const StateGuard &) = delete;

 private:
  ProtocolState saved_;
};

struct ChildResult {
  int exit_code = -1;  // -1: killed by a signal
  std::string err;     // everything it wrote to stderr
};

// Runs this executable again with --c3-child=<scenario> (no MPI in the child) and collects
// its exit code and stderr.
ChildResult run_child(const std::string &scenario);

// The child's side, called by main before anything else; returns the process's exit code.
int run_child_scenario(const std::string &scenario);

int world_rank();
int world_size();
// Whether the job has a second rank; warns that the test is skipped if not.
bool have_two_ranks();
// For a test between ranks 0 and 1: the other one of them, or -1 where the test does not run
// (a job of one rank, which have_two_ranks warns of, or a rank above 1).
int pair_peer();

}  // namespace c3::mpi::test
