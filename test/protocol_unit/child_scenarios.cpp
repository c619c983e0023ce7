// Scenarios run in a child process without MPI (run_child): each should end in c3's fatal error
// (exit status 2, a "c3: error:" line); returning 0 means the process survived what it must not.
#include <cstdio>
#include <functional>
#include <map>

#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "messages/piggyback.hpp"
#include "unit_support.hpp"

namespace c3::mpi::test {
namespace {

constexpr int kSurvived = 0;
constexpr int kUnknownScenario = 99;

void use_freed_handle() {
  Request *r = nullptr;
  MPI_Request h = new_request(Request::Kind::Send, &r);
  MPI_Request stale = h;
  free_request(h);
  request_of(stale);
}

void use_never_created_handle() {
  Request *r = nullptr;
  MPI_Request h = new_request(Request::Kind::Recv, &r);
  request_of(MPI_Request(int(h) + 5));  // shaped like ours, beyond the table
}

void use_foreign_handle() {
  Request *r = nullptr;
  new_request(Request::Kind::Recv, &r);
  request_of(MPI_Request(int(0xac000000u)));  // an MPICH request value
}

void free_freed_handle() {
  Request *r = nullptr;
  MPI_Request h = new_request(Request::Kind::Send, &r);
  MPI_Request stale = h;
  free_request(h);
  free_request(stale);
}

// The restart asks for a call the log has no outcome for.
void replay_unlogged_call() {
  ProtocolState &st = state();
  st.mode = Mode::Restore;
  Outcome first, third;
  first.call = 1;
  third.call = 3;
  st.replay.outcomes = {first, third};
  st.replay.calls_logged_until = 4;
  st.next_call = 3;
  replayed(2);
}

// A message classified by message_received in epoch 5 (colour 1) on a one-rank job.
void receive_in_epoch_five(Mode mode, int32_t header) {
  ProtocolState &st = state();
  for (auto &r : st.received) r.assign(1, 0);
  st.initiated.assign(1, 0);
  st.epoch = 5;
  st.mode = mode;
  message_received(MPI_COMM_WORLD, 0, 1, header, "x", MPI_BYTE, 1, false, 1);
}

}  // namespace

int run_child_scenario(const std::string &scenario) {
  static const std::map<std::string, std::function<void()>> scenarios = {
      {"request-of-freed", use_freed_handle},
      {"request-of-never-created", use_never_created_handle},
      {"request-of-foreign", use_foreign_handle},
      {"free-freed", free_freed_handle},
      {"replay-unlogged-call", replay_unlogged_call},
      {"receive-two-epochs-away",
       [] { receive_in_epoch_five(Mode::NonDetLog, piggyback::make_header(7, false)); }},
      {"receive-late-in-run",
       [] { receive_in_epoch_five(Mode::Run, piggyback::make_header(4, false)); }},
      {"receive-foreign-header", [] { receive_in_epoch_five(Mode::Run, 0x12345678); }},
  };
  auto it = scenarios.find(scenario);
  if (it == scenarios.end()) {
    std::fprintf(stderr, "unknown child scenario %s\n", scenario.c_str());
    return kUnknownScenario;
  }
  it->second();
  std::fprintf(stderr, "child scenario %s survived\n", scenario.c_str());
  return kSurvived;
}

}  // namespace c3::mpi::test
