#include "ClangInProcess.h"

#include <iostream>
#include <memory>

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Tool.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/Pragma.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Frontend/TextDiagnosticBuffer.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/ADT/Triple.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

using namespace clang;

// clang's optimizer pipeline registers the pass plugins LLVM was built with; Debian's LLVM 14
// lists Polly, whose archive it does not ship. Polly only acts under -mllvm -polly, and commands
// with -mllvm run as child processes (below): registering nothing is what clang does here.
llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly", LLVM_VERSION_STRING, [](llvm::PassBuilder &) {}};
}

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
void LLVMInitializeX86AsmParser();
}

namespace c3pre {
namespace {

int runChild(const std::vector<std::string> &Argv) {
  llvm::ErrorOr<std::string> Program = llvm::sys::findProgramByName(Argv[0]);
  if (!Program) {
    std::cerr << "c3-precompile: error: cannot find '" << Argv[0] << "'\n";
    return 2;
  }
  std::vector<llvm::StringRef> Args(Argv.begin(), Argv.end());
  std::string Error;
  const int Status = llvm::sys::ExecuteAndWait(*Program, Args, llvm::None, {}, 0, 0, &Error);
  if (Status < 0) {
    std::cerr << "c3-precompile: error: " << Argv[0] << ": " << Error << "\n";
    return Status == -2 ? 128 + 9 : 2;  // -2: the child crashed or was killed
  }
  return Status;
}

// c3cc's check of the user's source (-fsyntax-only): as clang's, except that c3's pragma is
// known, so -Wunknown-pragmas does not flag it.
class CheckSourceAction : public SyntaxOnlyAction {
  bool BeginSourceFileAction(CompilerInstance &CI) override {
    CI.getPreprocessor().AddPragmaHandler(new EmptyPragmaHandler("ccc_checkpoint"));
    return SyntaxOnlyAction::BeginSourceFileAction(CI);
  }
};

// The actions c3cc's commands ask for; anything else runs as a child process.
std::unique_ptr<FrontendAction> actionFor(frontend::ActionKind Kind) {
  switch (Kind) {
    case frontend::PrintPreprocessedInput: return std::make_unique<PrintPreprocessedAction>();
    case frontend::EmitObj: return std::make_unique<EmitObjAction>();
    case frontend::EmitAssembly: return std::make_unique<EmitAssemblyAction>();
    case frontend::EmitBC: return std::make_unique<EmitBCAction>();
    case frontend::EmitLLVM: return std::make_unique<EmitLLVMAction>();
    case frontend::ParseSyntaxOnly: return std::make_unique<CheckSourceAction>();
    default: return nullptr;
  }
}

// The executable the clang driver would see as itself (the real binary behind
// /usr/bin/clang-14), so that it finds its resource directory as clang does.
std::string clangExecutable(const std::string &Name) {
  llvm::ErrorOr<std::string> Program = llvm::sys::findProgramByName(Name);
  if (!Program) return std::string();
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(*Program, Real)) return *Program;
  return std::string(Real.str());
}

}  // namespace

int runClangCommand(const std::vector<std::string> &Argv) {
  static const bool TargetReady = [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
    return true;
  }();
  (void)TargetReady;
  // Only the clang this program was built with runs here (C3CC_CLANG may name another).
  const std::string Executable = clangExecutable(Argv[0]);
  static const std::string Linked = clangExecutable(C3PRE_CLANG_EXECUTABLE);
  if (Executable.empty() || Executable != Linked) return runChild(Argv);
  for (const std::string &Arg : Argv)  // what clang prints about itself, as clang prints it
    if (Arg == "-v" || Arg == "-###" || Arg == "--verbose" || Arg.rfind("-print-", 0) == 0 ||
        Arg.rfind("--print-", 0) == 0 || Arg.rfind("-save-temps", 0) == 0)
      return runChild(Argv);
  std::vector<const char *> CArgs;
  CArgs.push_back(Executable.c_str());
  for (size_t I = 1; I < Argv.size(); ++I) CArgs.push_back(Argv[I].c_str());

  llvm::IntrusiveRefCntPtr<DiagnosticOptions> DiagOpts = CreateAndPopulateDiagOpts(CArgs);
  auto *Printer = new TextDiagnosticPrinter(llvm::errs(), &*DiagOpts);
  Printer->setPrefix(llvm::sys::path::filename(Argv[0]).str());
  DiagnosticsEngine Diags(new DiagnosticIDs(), &*DiagOpts, Printer);
  driver::Driver TheDriver(Executable, llvm::sys::getDefaultTargetTriple(), Diags);
  std::unique_ptr<driver::Compilation> Compilation(TheDriver.BuildCompilation(CArgs));
  if (!Compilation || Compilation->containsError()) return 1;
  const driver::JobList &Jobs = Compilation->getJobs();
  if (Jobs.size() != 1) return runChild(Argv);
  const driver::Command &Job = *Jobs.begin();
  const llvm::opt::ArgStringList &CC1 = Job.getArguments();
  if (llvm::StringRef(Job.getCreator().getName()) != "clang" || CC1.empty() ||
      llvm::StringRef(CC1[0]) != "-cc1" ||
      !llvm::Triple(Compilation->getDefaultToolChain().getTriple()).isX86())
    return runChild(Argv);
  for (const char *Arg : CC1)
    if (llvm::StringRef(Arg) == "-load" || llvm::StringRef(Arg).startswith("-fplugin") ||
        llvm::StringRef(Arg) == "-plugin")
      return runChild(Argv);  // plugins change the process for good: a process of their own

  // As clang's cc1_main: the invocation from the -cc1 arguments, then the action.
  auto Instance = std::make_unique<CompilerInstance>();
  auto *Buffer = new TextDiagnosticBuffer;
  DiagnosticsEngine ParseDiags(new DiagnosticIDs(), new DiagnosticOptions, Buffer);
  const bool Parsed = CompilerInvocation::CreateFromArgs(
      Instance->getInvocation(), llvm::makeArrayRef(CC1).drop_front(), ParseDiags, Executable.c_str());
  Instance->createDiagnostics();
  if (!Instance->hasDiagnostics()) return 1;
  Buffer->FlushDiagnostics(Instance->getDiagnostics());
  if (!Parsed) return 1;
  const FrontendOptions &Frontend = Instance->getFrontendOpts();
  std::unique_ptr<FrontendAction> Action = actionFor(Frontend.ProgramAction);
  if (!Action || Frontend.ShowHelp || Frontend.ShowVersion || !Frontend.Plugins.empty() ||
      !Frontend.AddPluginActions.empty())
    return runChild(Argv);
  // LLVM's own options (-mllvm; the driver always passes one) are process-wide, and each may be
  // given once per parse: as cc1 does, parse them, forgetting the previous command's. The
  // commands of one c3cc call share their flags, so no value outlives its command.
  const std::vector<std::string> &LLVMArgs = Frontend.LLVMArgs;
  if (!LLVMArgs.empty()) {
    std::vector<const char *> Args = {"clang (LLVM option parsing)"};
    for (const std::string &Arg : LLVMArgs) Args.push_back(Arg.c_str());
    llvm::cl::ResetAllOptionOccurrences();
    if (!llvm::cl::ParseCommandLineOptions(int(Args.size()), Args.data(), "", &llvm::errs()))
      return 1;
  }
  const bool Ok = Instance->ExecuteAction(*Action);
  return Ok && !Instance->getDiagnostics().hasErrorOccurred() ? 0 : 1;
}

}  // namespace c3pre
