// The runtime's own state. The persistent part is written to the RUNTIME section with
// Boost.Serialization (never raw memory: it lives in the system heap, not the arena).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace c3 {

struct OnRestartCallback {
  uintptr_t function = 0;  // valid across processes: executables are linked -no-pie
  uintptr_t arg = 0;       // points into application memory (arena, globals, stack) or is opaque

  template <class Archive>
  void serialize(Archive &ar, unsigned /*version*/) {
    ar &function &arg;
  }
};

// Saved in every checkpoint and restored on restart.
struct PersistentState {
  uint64_t last_checkpoint = 0;    // number of the newest checkpoint this run has written
  uint64_t checkpoints_taken = 0;  // over the whole lineage of runs
  uint64_t bytes_written = 0;      // sum of checkpoint file sizes
  uint64_t write_ns = 0;           // time spent taking checkpoints
  uint64_t restarts = 0;           // restarts in this lineage
  int app_argc = 0;                // main's arguments, copied into the arena on the first run
  uintptr_t app_argv = 0;
  uintptr_t app_environ = 0;       // the environment, copied into the arena on the first run
  uintptr_t random_state = 0;      // the state array random()/rand() use (setstate's argument)
  std::vector<uintptr_t> atexit_handlers;  // in registration order
  std::vector<OnRestartCallback> on_restart;

  template <class Archive>
  void serialize(Archive &ar, unsigned /*version*/) {
    ar &last_checkpoint &checkpoints_taken &bytes_written &write_ns &restarts &app_argc &app_argv
        &app_environ &random_state &atexit_handlers &on_restart;
  }
};

// Known only to this process.
struct ProcessState {
  bool restarted = false;  // this process started from a checkpoint
  uint64_t restart_checkpoint = 0;
};

constexpr size_t kMaxOnRestartCallbacks = 16;
// atexit() handlers the runtime keeps for a restart; POSIX guarantees a program 32.
constexpr size_t kMaxAtexitHandlers = 32;

PersistentState &persistent_state();
ProcessState &process_state();

// RUNTIME section payload. decode throws CorruptCheckpoint (mentioning `path`) on bad input.
std::string encode_persistent_state(const PersistentState &state);
PersistentState decode_persistent_state(const void *data, size_t size, const std::string &path);

}  // namespace c3
