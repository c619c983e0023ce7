// c3-precompile IN.i OUT.i [IN2.i OUT2.i ...] [--whole-program] [-- clang-args...]
//
// Rewrites preprocessed C (clang -E -include c3/c3_abi.h) so the program can checkpoint itself.
// Exit status: 0 on success, 1 when diagnostics were printed, 2 on usage or I/O errors.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "Pipeline.h"

namespace {

int usage() {
  std::cerr << "usage: c3-precompile [--whole-program] IN.i OUT.i [IN.i OUT.i ...] [-- clang-args]\n";
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  c3pre::PipelineOptions Options;
  std::vector<std::string> Files;
  bool ClangArgs = false;
  for (int I = 1; I < argc; ++I) {
    std::string Arg = argv[I];
    if (ClangArgs) {
      Options.ClangArgs.push_back(Arg);
    } else if (Arg == "--") {
      ClangArgs = true;
    } else if (Arg == "--whole-program") {
      Options.WholeProgram = true;
    } else if (Arg == "--stop-after-pragmas") {
      Options.StopAfterPragmas = true;
    } else if (Arg == "-h" || Arg == "--help") {
      usage();
      return 0;
    } else if (!Arg.empty() && Arg[0] == '-' && Arg != "-") {
      std::cerr << "c3-precompile: error: unknown option '" << Arg << "'\n";
      return usage();
    } else {
      Files.push_back(Arg);
    }
  }
  if (Files.empty() || Files.size() % 2 != 0) return usage();

  std::vector<c3pre::InputFile> Inputs;
  std::vector<std::string> OutputPaths;
  for (size_t I = 0; I < Files.size(); I += 2) {
    std::ifstream In(Files[I], std::ios::binary);
    if (!In) {
      std::cerr << "c3-precompile: error: cannot read '" << Files[I] << "'\n";
      return 2;
    }
    std::stringstream Buffer;
    Buffer << In.rdbuf();
    Inputs.push_back({Files[I], Buffer.str()});
    OutputPaths.push_back(Files[I + 1]);
  }

  std::vector<std::string> Outputs;
  if (!c3pre::runPipeline(Inputs, Options, Outputs)) return 1;
  for (size_t I = 0; I < Outputs.size(); ++I) {
    if (OutputPaths[I] == "-") {
      std::cout << Outputs[I];
      continue;
    }
    std::ofstream Out(OutputPaths[I], std::ios::binary | std::ios::trunc);
    Out << Outputs[I];
    if (!Out.flush()) {
      std::cerr << "c3-precompile: error: cannot write '" << OutputPaths[I] << "'\n";
      return 2;
    }
  }
  return 0;
}
