// Shared helpers of the protocol unit tests: saving and restoring the protocol's global state
// around a test, running a scenario in a child process (for paths that end the process), and
// message buffers whose untouched bytes show.
#pragma once
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "handles/errhandlers.hpp"
#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi::test {

using Bytes = std::vector<unsigned char>;

// A receive buffer: `capacity` bytes of 0xee.
inline Bytes buffer(size_t capacity) { return Bytes(capacity, 0xee); }

// Whether `got` starts with `sent` and is untouched (0xee) after it.
inline bool holds(const Bytes &got, const Bytes &sent) {
  if (got.size() < sent.size()) return false;
  if (!sent.empty() && std::memcmp(got.data(), sent.data(), sent.size()) != 0) return false;
  for (size_t i = sent.size(); i < got.size(); ++i)
    if (got[i] != 0xee) return false;
  return true;
}

// The protocol state is process-global and MPI_Finalize still runs the protocol on it: every
// test that changes it puts it back as it was (the request table's free-slot list included).
class StateGuard {
 public:
  // Handlers a checkpoint inside the guard would let go first: it frees their MPICH objects,
  // which the restored tables would still name.
  StateGuard() : saved_((release_unused_errhandlers(), state())) {}
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
