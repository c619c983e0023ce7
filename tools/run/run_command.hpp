// `c3 run`: runs a job and relaunches it from its newest checkpoint until it finishes.
#pragma once
#include <string>
#include <vector>

namespace c3::run {

// The arguments after "run"; returns the exit status for c3.
int run_command(const std::vector<std::string> &args);

}  // namespace c3::run
