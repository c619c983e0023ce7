// Frame records of instrumented functions: collected at a checkpoint by walking __c3_top, and
// handed back one by one to __c3_frame_restore while a restart replays the call chain.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "c3/c3_abi.h"
#include "support/error.hpp"
#include "store/memory_image.hpp"

namespace c3::frames {

// The checkpoint cannot be taken here; what() says why (the runtime keeps running).
class CheckpointRefused : public Error {
 public:
  using Error::Error;
};

// The active frames, outermost first. Throws CheckpointRefused when the chain passes through a
// call c3 cannot re-enter, lies outside the fixed stack, or is empty.
std::vector<const __c3_frame *> active_chain();

// Checks saved frame records (FRAMES section) against this process: inside the fixed stack,
// linked to each other. Throws c3::Error describing the mismatch.
void validate_saved(const std::vector<MemoryPiece> &saved);
// Keeps copies of the records for __c3_frame_restore.
void load_for_replay(const std::vector<MemoryPiece> &saved);
// Called when the replay reaches the pragma: all saved frames must have been restored. Prints a
// "restart diverged" error and exits with status 2 otherwise.
void finish_replay(const char *where);

}  // namespace c3::frames
