// c3-precompile IN.i OUT.i [IN2.i OUT2.i ...] [--whole-program] [--embed-units
//               [--compile-arg ARG]...] [-- clang-args...]
// c3-precompile --relink --clang CLANG [--whole-program] OBJECT UNIT OUT [OBJECT UNIT OUT ...]
// c3-precompile --run-steps FILE
//
// Rewrites preprocessed C (clang -E -include c3/c3_abi.h) so the program can checkpoint itself.
// --embed-units also writes each file's link unit to OUT.unit and makes OUT embed it in its
// object (lib/LinkUnit.h). --relink runs at link time over the units c3cc took out of the
// program's objects (OBJECT names one in messages): only for the units that the whole program
// shows to be instrumented wrongly, it writes OUT and compiles it to OUT.o with the unit's own
// compile arguments; a unit it cannot read is reported and its object linked as it is.
// --run-steps runs a list of c3-precompile and clang commands in this one process (see
// runSteps below): c3cc's per-file commands without starting clang twice per file.
// Exit status: 0 on success, 1 when diagnostics were printed, 2 on usage or I/O errors.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include "ClangInProcess.h"
#include "LinkUnit.h"
#include "Pipeline.h"
#include "Relink.h"

namespace {

int usage() {
  std::cerr << "usage: c3-precompile [--whole-program] [--embed-units [--compile-arg ARG]...] "
               "IN.i OUT.i [IN.i OUT.i ...] [-- clang-args]\n"
               "       c3-precompile --relink --clang CLANG [--whole-program] OBJECT UNIT OUT ...\n"
               "       c3-precompile --run-steps FILE\n";
  return 2;
}

bool readFile(const std::string &Path, std::string &Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) return false;
  std::stringstream Buffer;
  Buffer << In.rdbuf();
  Out = Buffer.str();
  return true;
}

bool writeFile(const std::string &Path, const std::string &Text) {
  if (Path == "-") {
    std::cout << Text;
    return bool(std::cout.flush());
  }
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out << Text;
  if (Out.flush()) return true;
  std::cerr << "c3-precompile: error: cannot write '" << Path << "'\n";
  return false;
}

int relink(const std::vector<std::string> &Files, bool WholeProgram, const std::string &Clang) {
  std::vector<c3pre::LinkUnit> Units;
  std::vector<c3pre::FileSummary> Summaries;
  std::vector<std::string> OutputPaths;
  if (Files.empty() || Files.size() % 3 != 0) return usage();
  for (size_t I = 0; I < Files.size(); I += 3) {
    const std::string &Object = Files[I], &UnitPath = Files[I + 1];
    std::string Bytes, Error;
    c3pre::LinkUnit Unit;
    c3pre::FileSummary Summary;
    if (!readFile(UnitPath, Bytes)) {
      std::cerr << "c3-precompile: error: cannot read '" << UnitPath << "'\n";
      return 2;
    }
    if (!c3pre::decodeLinkUnit(Bytes, Unit, Error) ||
        !c3pre::parseSummary(Unit.Summary, unsigned(Units.size()), Summary)) {
      // Its object stays as c3cc -c made it: sound, only maybe slower. Other code is linked.
      std::cerr << "c3-precompile: warning: ignoring the c3 link unit of '" << Object << "' ("
                << (Error.empty() ? "bad summary" : Error) << "): it is linked as compiled\n";
      WholeProgram = false;
      continue;
    }
    Units.push_back(std::move(Unit));
    Summaries.push_back(std::move(Summary));
    OutputPaths.push_back(Files[I + 2]);
  }
  const c3pre::ReachInfo Whole(Summaries, WholeProgram);
  const std::vector<bool> Again = c3pre::unitsToInstrumentAgain(Summaries, Whole);
  for (size_t K = 0; K < Units.size(); ++K) {
    if (!Again[K]) continue;
    c3pre::PipelineOptions Options;
    Options.ClangArgs = Units[K].ParseArgs;
    Options.FixedReach = &Whole;
    Options.FileIndexBase = unsigned(K);
    std::vector<std::string> Outputs;
    if (!c3pre::runPipeline({{Units[K].Name, Units[K].Source}}, Options, Outputs)) return 1;
    if (!writeFile(OutputPaths[K], Outputs[0])) return 2;
    std::vector<std::string> Compile = {Clang, "-x", "cpp-output", "-c", OutputPaths[K], "-o",
                                        OutputPaths[K] + ".o"};
    Compile.insert(Compile.end(), Units[K].CompileArgs.begin(), Units[K].CompileArgs.end());
    if (int Status = c3pre::runClangCommand(Compile)) return Status;
  }
  return 0;
}

// One c3-precompile command line (without the program name).
int precompile(const std::vector<std::string> &Args) {
  c3pre::PipelineOptions Options;
  std::vector<std::string> Files, CompileArgs;
  bool ClangArgs = false, EmbedUnits = false, Relink = false;
  std::string Clang = "clang-14";
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &Arg = Args[I];
    if (ClangArgs) {
      Options.ClangArgs.push_back(Arg);
    } else if (Arg == "--") {
      ClangArgs = true;
    } else if (Arg == "--whole-program") {
      Options.WholeProgram = true;
    } else if (Arg == "--stop-after-pragmas") {
      Options.StopAfterPragmas = true;
    } else if (Arg == "--embed-units") {
      EmbedUnits = true;
    } else if (Arg == "--compile-arg" && I + 1 < Args.size()) {
      CompileArgs.push_back(Args[++I]);
    } else if (Arg == "--clang" && I + 1 < Args.size()) {
      Clang = Args[++I];
    } else if (Arg == "--relink") {
      Relink = true;
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
  if (Relink) return relink(Files, Options.WholeProgram, Clang);
  if (Files.empty() || Files.size() % 2 != 0) return usage();

  std::vector<c3pre::InputFile> Inputs;
  std::vector<std::string> OutputPaths;
  for (size_t I = 0; I < Files.size(); I += 2) {
    std::string Text;
    if (!readFile(Files[I], Text)) {
      std::cerr << "c3-precompile: error: cannot read '" << Files[I] << "'\n";
      return 2;
    }
    Inputs.push_back({Files[I], std::move(Text)});
    OutputPaths.push_back(Files[I + 1]);
  }

  std::vector<std::string> Outputs;
  std::vector<c3pre::FileSummary> Summaries;
  if (!c3pre::runPipeline(Inputs, Options, Outputs, &Summaries)) return 1;
  for (size_t I = 0; I < Outputs.size(); ++I) {
    if (EmbedUnits) {
      const std::string UnitPath = OutputPaths[I] + ".unit";
      // No temporary path in the unit: the same source makes the same object.
      c3pre::LinkUnit Unit{llvm::sys::path::filename(Inputs[I].Name).str(), Options.ClangArgs, CompileArgs,
                           c3pre::serializeSummary(Summaries[I], unsigned(I)), Inputs[I].Text};
      if (!writeFile(UnitPath, c3pre::encodeLinkUnit(Unit))) return 2;
      Outputs[I] += c3pre::embedUnitDirective(UnitPath);
    }
    if (!writeFile(OutputPaths[I], Outputs[I])) return 2;
  }
  return 0;
}

// --run-steps FILE: the commands in FILE, in order, until one fails (its status is returned).
// A command is its argument count, then its arguments, each ending with a NUL. Commands of
// c3-precompile run here; clang commands run here too (ClangInProcess.h).
int runSteps(const std::string &Path) {
  std::string Text;
  if (!readFile(Path, Text)) {
    std::cerr << "c3-precompile: error: cannot read '" << Path << "'\n";
    return 2;
  }
  std::vector<std::string> Items;
  for (size_t Start = 0; Start < Text.size();) {
    size_t End = Text.find('\0', Start);
    if (End == std::string::npos) End = Text.size();
    Items.push_back(Text.substr(Start, End - Start));
    Start = End + 1;
  }
  for (size_t I = 0; I < Items.size();) {
    size_t Count = 0;
    if (!llvm::to_integer(Items[I], Count) || Count == 0 || I + 1 + Count > Items.size()) {
      std::cerr << "c3-precompile: error: malformed step list '" << Path << "'\n";
      return 2;
    }
    std::vector<std::string> Command(Items.begin() + I + 1, Items.begin() + I + 1 + Count);
    I += 1 + Count;
    const bool Ours = llvm::sys::path::filename(Command[0]) == "c3-precompile";
    const int Status = Ours ? precompile({Command.begin() + 1, Command.end()})
                            : c3pre::runClangCommand(Command);
    if (Status != 0) return Status;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> Args(argv + 1, argv + argc);
  if (Args.size() == 2 && Args[0] == "--run-steps") return runSteps(Args[1]);
  return precompile(Args);
}
