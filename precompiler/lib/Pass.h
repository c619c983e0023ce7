// A transformation over one parsed translation unit. Passes record edits in the Rewriter; the
// pipeline reparses between stages so every pass sees a consistent AST of the previous output.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Pragma.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "Reachability.h"
#include "SourceText.h"

namespace c3pre {

struct PassContext {
  clang::ASTContext &Ctx;
  clang::Rewriter &Rewrite;
  const SourceText &Source;
  const ReachInfo &Reach;
  unsigned FileIndex;

  clang::DiagnosticsEngine &diags() const { return Ctx.getDiagnostics(); }
  bool isInstrumented(const clang::FunctionDecl *FD) const {
    return Reach.isInstrumented(FD, FileIndex) &&
           !Ctx.getSourceManager().isInSystemHeader(FD->getLocation());
  }
  bool isReachingCall(const clang::CallExpr *Call) const {
    return Reach.isReachingCall(Call, FileIndex);
  }
  // Calls Visit(FD) for each function definition of the file that is instrumented.
  template <typename Fn>
  void forEachInstrumentedFunction(Fn &&Visit) {
    for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
      auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
      if (FD && FD->doesThisDeclarationHaveABody() && isInstrumented(FD)) Visit(FD);
    }
  }
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual const char *name() const = 0;
  virtual void run(PassContext &PC) = 0;
};

// Stage 1: `#pragma ccc_checkpoint [force]` lines, seen by a preprocessor pragma handler, become
// calls to the runtime's checkpoint site.
struct PragmaUse {
  clang::SourceLocation HashLoc;  // the '#'
  bool Force = false;
  bool Valid = true;              // false: the handler already reported a bad argument
};
clang::PragmaHandler *createCheckpointPragmaHandler(std::vector<PragmaUse> &Uses);
std::unique_ptr<Pass> createPragmaSitesPass(const std::vector<PragmaUse> &Uses);

// The passes, in the order the pipeline runs them (see Pipeline.cpp).
std::unique_ptr<Pass> createCheckUnsupportedPass();
std::unique_ptr<Pass> createRenameHeapPass();
std::unique_ptr<Pass> createTrackFilesPass();
std::unique_ptr<Pass> createRegisterGlobalsPass();
std::unique_ptr<Pass> createMoveVariableArraysPass();
std::unique_ptr<Pass> createSplitCallsPass();
std::unique_ptr<Pass> createHoistLocalsPass();
std::unique_ptr<Pass> createReentryDispatchPass();
std::unique_ptr<Pass> createRenameMainPass();

}  // namespace c3pre
