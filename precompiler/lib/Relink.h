// The link step over the link units of files compiled alone: which of them the whole program
// shows to be instrumented wrongly: a function instrumented only because, compiled alone,
// c3-precompile had to assume that other files' functions and function pointers may reach a
// checkpoint (or, for a function with a construct c3 cannot re-enter, left uninstrumented while
// it does reach one: precompiling it again reports the construct). A file whose functions are
// instrumented as they should be, but with call sites for calls that cannot reach a checkpoint,
// is left as it is: compiled alone, a file has every site it needs (never fewer), and an extra
// site costs its few stores per call, less than compiling the file again at every link.
#pragma once
#include <vector>

#include "Reachability.h"

namespace c3pre {

// Units[k] is the summary of unit k, read with file index k. Whole is the reachability over all
// of them (WholeProgram: no other code is linked in that could reach a checkpoint).
std::vector<bool> unitsToInstrumentAgain(const std::vector<FileSummary> &Units, const ReachInfo &Whole);

}  // namespace c3pre
