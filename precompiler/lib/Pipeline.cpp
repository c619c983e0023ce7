// Stages of the precompiler. Each stage parses the previous stage's output, runs its passes
// (whose edits never overlap), and prints the rewritten buffer:
//
//   1  pragma-sites                        pragmas become __c3_checkpoint_site calls
//   -  reachability                        call-graph summary of every file, then a fixpoint
//   2  check-unsupported, rename-heap, track-files, register-globals
//   2b move-variable-arrays                VLAs and alloca to the c3 heap (instrumented functions)
//   3  split-calls                         reaching calls become statements of their own
//   4  hoist-locals                        the frame record
//   5  reentry-dispatch, rename-main       labels, dispatch, frame push/pop, main
//
// Parses are most of the precompiler's time on a large file, so none is made that cannot change
// the result: a file without pragmas is summarized in the parse of stage 1 (which left it as it
// was); a file precompiled alone runs stage 2 in the parse that summarizes it; a stage that
// leaves the text unchanged hands its parse to the next stage; and stages 3-5 are skipped for a
// file with no instrumented function and no main.
#include "Pipeline.h"

#include <functional>

#include "Pass.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"

using namespace clang;

namespace c3pre {
namespace {

using StageBody = std::function<void(ASTContext &, Rewriter &)>;

class StageConsumer : public ASTConsumer {
 public:
  StageConsumer(StageBody Body, Rewriter &R, std::string &Out, bool &Ok)
      : Body(std::move(Body)), R(R), Out(Out), Ok(Ok) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    DiagnosticsEngine &Diags = Ctx.getDiagnostics();
    if (Diags.hasErrorOccurred()) return;
    Body(Ctx, R);
    if (Diags.hasErrorOccurred()) return;
    const SourceManager &SM = Ctx.getSourceManager();
    if (const RewriteBuffer *Buffer = R.getRewriteBufferFor(SM.getMainFileID()))
      Out = std::string(Buffer->begin(), Buffer->end());
    else
      Out = SM.getBufferData(SM.getMainFileID()).str();
    Ok = true;
  }

 private:
  StageBody Body;
  Rewriter &R;
  std::string &Out;
  bool &Ok;
};

class StageAction : public ASTFrontendAction {
 public:
  StageAction(StageBody Body, std::string &Out, bool &Ok, std::vector<PragmaUse> *Pragmas)
      : Body(std::move(Body)), Out(Out), Ok(Ok), Pragmas(Pragmas) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    if (Pragmas) CI.getPreprocessor().AddPragmaHandler(createCheckpointPragmaHandler(*Pragmas));
    R.setSourceMgr(CI.getSourceManager(), CI.getLangOpts());
    return std::make_unique<StageConsumer>(Body, R, Out, Ok);
  }

 private:
  StageBody Body;
  std::string &Out;
  bool &Ok;
  std::vector<PragmaUse> *Pragmas;
  Rewriter R;
};

bool runStage(const std::string &Text, const std::string &Name, const PipelineOptions &Options,
              StageBody Body, std::string &Out, std::vector<PragmaUse> *Pragmas = nullptr) {
  bool Ok = false;
  // LibTooling only accepts inputs that still need preprocessing, so the preprocessed text is
  // parsed as C; -undef keeps predefined macros from touching identifiers in it.
  std::vector<std::string> Args = {"-w", "-ferror-limit=50", "-x", "c", "-undef"};
  Args.insert(Args.end(), Options.ClangArgs.begin(), Options.ClangArgs.end());
  bool Ran = tooling::runToolOnCodeWithArgs(
      std::make_unique<StageAction>(std::move(Body), Out, Ok, Pragmas), Text, Args, Name,
      "c3-precompile");
  return Ran && Ok;
}

void runPasses(const std::vector<std::unique_ptr<Pass>> &Passes, ASTContext &Ctx, Rewriter &R,
               const ReachInfo &Reach, unsigned FileIndex) {
  SourceText Source(Ctx);
  PassContext PC{Ctx, R, Source, Reach, FileIndex};
  for (const auto &P : Passes) P->run(PC);
}

// Whether stages 3-5 would edit the file: only instrumented functions and main are theirs.
bool hasReentryWork(const FileSummary &File, const ReachInfo &Reach) {
  for (const auto &F : File.Functions)
    if (F.Key == "main" || Reach.instruments(F.Key)) return true;
  return false;
}

std::string stageName(const std::string &Input) {
  // Parsed as preprocessed C whatever the input is called.
  std::string Base = Input.substr(Input.find_last_of('/') + 1);
  return Base + ".c";
}

}  // namespace

bool runPipeline(const std::vector<InputFile> &Inputs, const PipelineOptions &Options,
                 std::vector<std::string> &Outputs, std::vector<FileSummary> *SummariesOut) {
  bool AllOk = true;
  std::vector<std::string> Texts(Inputs.size());

  // Stages 2-5 (2b: its edits would overlap those of stage 2's passes).
  std::vector<std::vector<std::unique_ptr<Pass>>> Stages;
  Stages.emplace_back();
  Stages.back().push_back(createCheckUnsupportedPass());
  Stages.back().push_back(createRenameHeapPass());
  Stages.back().push_back(createTrackFilesPass());
  Stages.back().push_back(createRegisterGlobalsPass());
  Stages.emplace_back();
  Stages.back().push_back(createMoveVariableArraysPass());
  Stages.emplace_back();
  Stages.back().push_back(createSplitCallsPass());
  Stages.emplace_back();
  Stages.back().push_back(createHoistLocalsPass());
  Stages.emplace_back();
  Stages.back().push_back(createReentryDispatchPass());
  Stages.back().push_back(createRenameMainPass());

  std::vector<FileSummary> Summaries(Inputs.size());
  ReachInfo Reach;
  if (Options.FixedReach) Reach = *Options.FixedReach;
  auto fileIndex = [&](size_t I) { return unsigned(Options.FileIndexBase + I); };

  // Runs stages From.. of file I on one parse for as long as they leave the text unchanged (the
  // next stage would parse the same text again); returns how many ran.
  auto runChained = [&](size_t I, size_t From, size_t Count, ASTContext &Ctx, Rewriter &R) {
    const FileID Main = Ctx.getSourceManager().getMainFileID();
    size_t Ran = 0;
    for (size_t S = From; S < Count; ++S) {
      runPasses(Stages[S], Ctx, R, Reach, fileIndex(I));
      ++Ran;
      if (R.getRewriteBufferFor(Main) || Ctx.getDiagnostics().hasErrorOccurred()) break;
    }
    return Ran;
  };
  auto stageCount = [&](size_t I) {
    return hasReentryWork(Summaries[I], Reach) ? Stages.size() : size_t(1);
  };

  // A file's summary is taken from the text stage 2 starts from. Alone (one file, as with
  // c3cc -c), its reachability needs no other file, so stage 2 runs in that same parse.
  const bool Alone = Inputs.size() == 1;
  std::vector<bool> Summarized(Inputs.size(), false);
  std::vector<size_t> StagesDone(Inputs.size(), 0);
  auto summarizeFile = [&](size_t I, ASTContext &Ctx, Rewriter &R) {
    Summaries[I] = summarize(Ctx, fileIndex(I));
    Summarized[I] = true;
    if (!Alone) return;
    if (!Options.FixedReach) Reach = ReachInfo(Summaries, Options.WholeProgram);
    StagesDone[I] = runChained(I, 0, stageCount(I), Ctx, R);
  };

  // Stage 1: pragma sites; a file it leaves unchanged is summarized in the same parse.
  for (size_t I = 0; I < Inputs.size(); ++I) {
    std::vector<PragmaUse> Pragmas;
    auto Pass = createPragmaSitesPass(Pragmas);
    bool Ok = runStage(Inputs[I].Text, stageName(Inputs[I].Name), Options,
                       [&](ASTContext &Ctx, Rewriter &R) {
                         SourceText Source(Ctx);
                         ReachInfo None;
                         PassContext PC{Ctx, R, Source, None, fileIndex(I)};
                         Pass->run(PC);
                         if (Options.StopAfterPragmas ||
                             R.getRewriteBufferFor(Ctx.getSourceManager().getMainFileID()))
                           return;
                         summarizeFile(I, Ctx, R);
                       },
                       Texts[I], &Pragmas);
    AllOk = AllOk && Ok;
  }
  if (!AllOk) return false;
  if (Options.StopAfterPragmas) {
    Outputs = Texts;
    return true;
  }

  // Reachability over all files given together.
  for (size_t I = 0; I < Inputs.size(); ++I) {
    if (Summarized[I]) continue;
    std::string Next;
    AllOk &= runStage(Texts[I], stageName(Inputs[I].Name), Options,
                      [&](ASTContext &Ctx, Rewriter &R) { summarizeFile(I, Ctx, R); }, Next);
    if (StagesDone[I]) Texts[I] = std::move(Next);
  }
  if (!AllOk) return false;
  if (!Alone && !Options.FixedReach) Reach = ReachInfo(Summaries, Options.WholeProgram);

  for (size_t I = 0; I < Inputs.size() && AllOk; ++I) {
    const size_t Count = stageCount(I);
    for (size_t S = StagesDone[I]; S < Count;) {
      std::string Next;
      size_t Ran = 0;
      bool Ok = runStage(Texts[I], stageName(Inputs[I].Name), Options,
                         [&](ASTContext &Ctx, Rewriter &R) { Ran = runChained(I, S, Count, Ctx, R); },
                         Next);
      if (!Ok || Ran == 0) {
        AllOk = false;
        break;
      }
      S += Ran;
      Texts[I] = std::move(Next);
    }
  }
  if (AllOk) Outputs = Texts;
  if (AllOk && SummariesOut) *SummariesOut = Summaries;
  return AllOk;
}

}  // namespace c3pre
