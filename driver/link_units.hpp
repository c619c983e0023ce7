// The link-time step of file-by-file builds. c3cc -c must assume that functions of other files
// may reach a checkpoint, and embeds in each object the file's link unit (its call-graph summary
// and preprocessed text, see precompiler/lib/LinkUnit.h). When c3cc links an executable it
// reads the units of the objects it is given, lets c3-precompile --relink decide reachability
// over all of them, and compiles again the objects that the whole program shows to be
// instrumented more (or less) than needed (c3-precompile --relink precompiles and compiles
// them); the link then takes those instead.
#pragma once

#include <string>

#include "process.hpp"
#include "toolchain.hpp"

namespace c3cc {

// inputs: the user's link arguments, in order. Objects without a unit, archives and shared
// objects given as files, and -l libraries other than system ones (is_system_library), are
// other code: reachability then stays sound for calls from it (function pointers may come from
// it).
// Replaces the re-instrumented objects in `link`; returns 0, or the status of the first
// failing child (whose diagnostics it printed).
int instrument_at_link(const Command &inputs, Command &link, const Toolchain &tools,
                       const std::string &temp_dir, bool verbose);

}  // namespace c3cc
