// Runs a clang command line (as c3cc plans them: `clang -E ...`, `clang -x cpp-output -c ...`)
// inside this process, the way the clang binary would: the clang driver turns the command into
// its one -cc1 job, and that job's frontend action runs here. Starting clang costs 20-25 ms
// (loading libclang-cpp and libLLVM), more than its work on most files. A command that is not
// one -cc1 job of a kind handled here (-save-temps, -###, plugins, a foreign target...) runs as a
// child process instead.
#pragma once
#include <string>
#include <vector>

namespace c3pre {

// Returns what the clang binary would exit with: 0, 1 after errors, or the child's status.
int runClangCommand(const std::vector<std::string> &Argv);

}  // namespace c3pre
