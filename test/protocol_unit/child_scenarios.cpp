// Scenarios run in a child process without MPI (run_child): each should end in c3's fatal error
// (exit status 2, a "c3: error:" line); returning 0 means the process survived what it must not.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

#include "handles/handles.hpp"
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

// Stale handles of the handle tables, left as the free paths leave them (without MPI, the MPICH
// objects are made-up values that are never used), then passed to c3's wrappers again.
constexpr int kSomeMpichObject = int(0x84000003u), kOtherMpichObject = int(0x8c000007u);

MPI_Comm freed_comm() {
  auto &comms = handles().comms;
  MPI_Comm c = comms.add(kSomeMpichObject, CommInfo{});
  comms.drop(c);  // as on_Comm_free: the MPICH object goes, the entry becomes a ghost
  comms.forget_real(c);
  comms.erase(c);
  return c;
}

MPI_Datatype freed_type() {
  auto &types = handles().types;
  MPI_Datatype t = types.add(kSomeMpichObject, TypeInfo{});
  types.drop(t);
  types.forget_real(t);
  types.erase(t);
  return t;
}

// A type the program freed while another type built from it lives: an entry without a handle.
MPI_Datatype zombie_type() {
  auto &types = handles().types;
  MPI_Datatype component = types.add(kSomeMpichObject, TypeInfo{});
  TypeInfo derived;
  derived.types = {component};
  types.add(kOtherMpichObject, derived);
  ++types.find(component)->info.dependants;
  types.drop(component);
  types.forget_real(component);
  return component;
}

void size_of_freed_comm() {
  int size = 0;
  MPI_Comm_size(freed_comm(), &size);
}

void send_on_freed_comm() {
  int x = 0;
  MPI_Send(&x, 1, MPI_INT, 0, 0, freed_comm());
}

void size_of_freed_type() {
  int size = 0;
  MPI_Type_size(freed_type(), &size);
}

void size_of_zombie_type() {
  int size = 0;
  MPI_Type_size(zombie_type(), &size);
}

void free_zombie_type() {
  MPI_Datatype t = zombie_type();
  MPI_Type_free(&t);
}

void size_of_freed_group() {
  auto &groups = handles().groups;
  MPI_Group g = groups.add(kSomeMpichObject, GroupInfo{});
  groups.drop(g);
  groups.erase(g);
  int size = 0;
  MPI_Group_size(g, &size);
}

void free_freed_errhandler() {
  // free_errhandler keeps the entry (c3's own reference) with no handle of the program's.
  MPI_Errhandler e = handles().errhandlers.add(kSomeMpichObject, ErrhandlerInfo{});
  --handles().errhandlers.find(e)->refs;
  MPI_Errhandler_free(&e);
}

void free_freed_keyval() {
  // free_keyval keeps the entry (MPICH may still call its callbacks) with no handle.
  int k = handles().keyvals.add(0, KeyvalInfo{});
  auto *slot = handles().keyvals.find(k);
  slot->refs = 0;
  slot->info.freed = true;
  MPI_Comm_free_keyval(&k);
}

// Unlike the others, these scenarios start MPI: each runs as a singleton MPI job of its own (the
// variables mpiexec gives its processes are dropped first) and should survive (exit status 0),
// after writing what it found to stderr.
void init_singleton() {
  for (const char *name : {"PMI_RANK", "PMI_SIZE", "PMI_FD", "PMI_PORT", "PMI_ID", "PMI_KVSNAME",
                           "MPI_LOCALNRANKS", "MPI_LOCALRANKID"})
    unsetenv(name);
  MPI_Init(nullptr, nullptr);
}

// MPICH hands out its cached type again (no new reference) for the same (p, r).
void f90_type_twice() {
  init_singleton();
  MPI_Datatype a = MPI_DATATYPE_NULL, b = MPI_DATATYPE_NULL;
  MPI_Type_create_f90_real(6, 30, &a);
  MPI_Type_create_f90_real(6, 30, &b);
  int size_a = 0, size_b = 0;
  MPI_Type_size(a, &size_a);
  MPI_Type_size(b, &size_b);
  std::fprintf(stderr, "f90 type sizes %d %d\n", size_a, size_b);
  MPI_Finalize();
}

void ignore_error(MPI_Comm *, int *, ...) {}

// More error handlers over the run than trampolines, never more than two alive: each freed
// at once, or set on a communicator and freed before it.
void errhandlers_one_at_a_time() {
  init_singleton();
  for (int i = 0; i < 100; ++i) {
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    MPI_Comm_create_errhandler(ignore_error, &e);
    MPI_Errhandler_free(&e);
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_SELF, &c);
    MPI_Comm_create_errhandler(ignore_error, &e);
    MPI_Comm_set_errhandler(c, e);
    MPI_Errhandler_free(&e);
    MPI_Comm_free(&c);
  }
  std::fprintf(stderr, "created and freed 100 error handlers\n");
  MPI_Finalize();
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
      {"comm-of-freed", size_of_freed_comm},
      {"comm-send-on-freed", send_on_freed_comm},
      {"type-of-freed", size_of_freed_type},
      {"type-of-zombie", size_of_zombie_type},
      {"type-free-zombie", free_zombie_type},
      {"group-of-freed", size_of_freed_group},
      {"errhandler-free-freed", free_freed_errhandler},
      {"keyval-free-freed", free_freed_keyval},
      {"f90-type-twice", f90_type_twice},
      {"errhandlers-one-at-a-time", errhandlers_one_at_a_time},
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
