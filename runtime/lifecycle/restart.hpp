// Restart: choose a checkpoint, verify it, and rebuild globals, heap and runtime state before the
// application's call chain is replayed on the fixed stack.
#pragma once
#include "lifecycle/config.hpp"

namespace c3::restart {

// Per C3_RESTART: nothing for a fresh run (returns false); otherwise selects and verifies a
// checkpoint, restores memory, cuts stdout/stderr back, loads the frames for replay and sets
// __c3_restoring (returns true). Unusable checkpoints end the process with status 2 and a
// "c3: error: ..." line. Needs the heap arena and the fixed stack mapped.
bool prepare(const Config &config);

}  // namespace c3::restart
