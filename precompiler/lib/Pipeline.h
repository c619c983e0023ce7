// Runs the precompiler over a set of preprocessed files.
#pragma once
#include <string>
#include <vector>

#include "Reachability.h"

namespace c3pre {

struct InputFile {
  std::string Name;  // for messages; line markers inside the text name the real sources
  std::string Text;  // preprocessed C (clang -E with -include c3/c3_abi.h)
};

struct PipelineOptions {
  bool WholeProgram = false;
  std::vector<std::string> ClangArgs;  // e.g. -std=gnu11
  bool StopAfterPragmas = false;       // debugging: output after stage 1
  // Reachability decided elsewhere (over the link units of a whole program): the inputs are
  // instrumented by it, as files FileIndexBase, FileIndexBase + 1, ... of that program.
  const ReachInfo *FixedReach = nullptr;
  unsigned FileIndexBase = 0;
};

// Returns false if any diagnostic error was printed; Outputs then is incomplete. Summaries, if
// given, receives each input's call-graph summary.
bool runPipeline(const std::vector<InputFile> &Inputs, const PipelineOptions &Options,
                 std::vector<std::string> &Outputs, std::vector<FileSummary> *Summaries = nullptr);

}  // namespace c3pre
