// The commands c3cc runs for one invocation: preprocess, precompile, compile, link.
#pragma once

#include <string>
#include <vector>

#include "command_line.hpp"
#include "process.hpp"
#include "toolchain.hpp"

namespace c3cc {

// InstrumentAtLink is run by c3cc itself (link_units.hpp): its command lists the user's link
// inputs, and it may replace objects in the Link step that follows.
// Check: clang -fsyntax-only on the user's own source, the one step whose warnings are shown (the
// others see rewritten code and run with -w).
enum class StepKind { Preprocess, Check, Precompile, Compile, InstrumentAtLink, Link, PassThrough };

struct Step {
  StepKind kind;
  Command command;
};

struct Plan {
  std::vector<Step> steps;  // run in order; the first failure stops the pipeline
  // Standard input ("-" as a source) is copied to this file before the steps run.
  std::string stdin_copy;
  std::vector<std::string> unused_linker_inputs;  // given, but no link step runs
};

// Commands that only preprocess (-E, -M, -MM): clang with the user's arguments plus c3's and
// MPICH's include directories, as mpicc -E would run its compiler.
Plan plan_pass_through(const Invocation &inv, const Toolchain &tools);

// The full pipeline; intermediate files go to temp_dir. Throws UsageError for impossible
// requests (several outputs with one -o).
Plan plan_pipeline(const Invocation &inv, const Toolchain &tools, const std::string &temp_dir);

// Whether the precompiler may assume the sources of this invocation are the whole program.
bool is_whole_program(const Invocation &inv);

// Whether the link names -l libraries other than the system's (toolchain.hpp).
bool links_other_libraries(const Invocation &inv);

}  // namespace c3cc
