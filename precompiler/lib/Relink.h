// The link step over the link units of files compiled alone: which of them the whole program
// shows to be instrumented wrongly (a function instrumented, or a call treated as a call site,
// only because compiled alone c3-precompile had to assume that other files' functions and
// function pointers may reach a checkpoint).
#pragma once
#include <vector>

#include "Reachability.h"

namespace c3pre {

// Units[k] is the summary of unit k, read with file index k. Whole is the reachability over all
// of them (WholeProgram: no other code is linked in that could reach a checkpoint).
std::vector<bool> unitsToInstrumentAgain(const std::vector<FileSummary> &Units, const ReachInfo &Whole);

}  // namespace c3pre
