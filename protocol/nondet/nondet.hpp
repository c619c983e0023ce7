// Non-deterministic outcomes: numbered calls (tests, probes, Wait{any,some}) are logged in
// NonDet-Log and replayed after a restart until the log ends.
#pragma once
#include <cstdint>
#include <vector>

#include "state/protocol_state.hpp"

namespace c3::mpi {

uint64_t next_call();
bool replaying(uint64_t call);        // the outcome of `call` comes from the log
const Outcome &replayed(uint64_t call);
void log_outcome(uint64_t call, int flag, const std::vector<int> &indices = {}, int source = 0,
                 int tag = 0, int64_t bytes = 0);
void maybe_end_restore();

}  // namespace c3::mpi
