// What `c3 run` learns from the processes it launches (C3_RUN_DIR): each process of the program
// leaves started.<pid> when it begins and exited.<pid> when it ends through exit() or a return
// from main, unless it ends because another process failed (MPI aborting a rank whose peer died).
// A job whose every started process also exited has finished, whatever its exit status; any other
// end is a failure `c3 run` restarts from the newest checkpoint.
#pragma once
#include <string>

namespace c3::run_markers {

void begin(const std::string &run_dir);  // nothing when run_dir is empty

}  // namespace c3::run_markers
