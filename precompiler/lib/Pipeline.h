// Runs the precompiler over a set of preprocessed files.
#pragma once
#include <string>
#include <vector>

namespace c3pre {

struct InputFile {
  std::string Name;  // for messages; line markers inside the text name the real sources
  std::string Text;  // preprocessed C (clang -E with -include c3/c3_abi.h)
};

struct PipelineOptions {
  bool WholeProgram = false;
  std::vector<std::string> ClangArgs;  // e.g. -std=gnu11
  bool StopAfterPragmas = false;       // debugging: output after stage 1
};

// Returns false if any diagnostic error was printed; Outputs then is incomplete.
bool runPipeline(const std::vector<InputFile> &Inputs, const PipelineOptions &Options,
                 std::vector<std::string> &Outputs);

}  // namespace c3pre
