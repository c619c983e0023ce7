// The runtime owns the process's main(): it maps the fixed stack and heap, restores a checkpoint
// when asked, and calls the application's main as __c3_app_main on the fixed stack. This pass
// renames the user's main to __c3_user_main and adds __c3_app_main with the runtime's signature.
#include "Diagnostics.h"
#include "Pass.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

class MainReferences : public RecursiveASTVisitor<MainReferences> {
 public:
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl()))
      if (FD->isMain()) Refs.push_back(Ref);
    return true;
  }
  std::vector<const DeclRefExpr *> Refs;
};

class RenameMainPass : public Pass {
 public:
  const char *name() const override { return "rename-main"; }

  void run(PassContext &PC) override {
    const FunctionDecl *Main = nullptr;
    for (Decl *D : PC.Ctx.getTranslationUnitDecl()->decls()) {
      auto *FD = dyn_cast<FunctionDecl>(D);
      if (!FD || !FD->isMain()) continue;
      PC.Rewrite.ReplaceText(FD->getLocation(), 4, "__c3_user_main");
      if (FD->doesThisDeclarationHaveABody()) Main = FD;
    }
    if (!Main) return;
    // C gives main an implicit `return 0`; the renamed function is an ordinary one.
    if (Main->getReturnType()->isIntegerType())
      PC.Rewrite.InsertTextAfter(cast<CompoundStmt>(Main->getBody())->getRBracLoc(), "return 0; ");
    MainReferences Refs;
    Refs.TraverseDecl(PC.Ctx.getTranslationUnitDecl());
    for (const DeclRefExpr *Ref : Refs.Refs)
      PC.Rewrite.ReplaceText(Ref->getLocation(), 4, "__c3_user_main");

    unsigned Arity = Main->getNumParams();
    if (Arity > 3) {
      reportError(PC.diags(), Main->getLocation(), "main() with more than three parameters",
                  "declare main as 'int main(void)', 'int main(int, char **)' or "
                  "'int main(int, char **, char **)'");
      return;
    }
    static const char *const Args[] = {"argc", "argv", "envp"};
    std::string Call = "__c3_user_main(";
    for (unsigned I = 0; I < Arity; ++I) Call += std::string(I ? ", " : "") + Args[I];
    Call += ")";
    bool ReturnsVoid = Main->getReturnType()->isVoidType();
    std::string Wrapper =
        "\nint __c3_app_main(int argc, char **argv, char **envp) { (void)argc; (void)argv;"
        " (void)envp; __c3_call_expected = (__c3_function)__c3_user_main; " +
        (ReturnsVoid ? Call + "; return 0;" : "return " + Call + ";") + " }\n";
    const SourceManager &SM = PC.Ctx.getSourceManager();
    PC.Rewrite.InsertTextAfter(SM.getLocForEndOfFile(SM.getMainFileID()), Wrapper);
  }
};

}  // namespace

std::unique_ptr<Pass> createRenameMainPass() { return std::make_unique<RenameMainPass>(); }

}  // namespace c3pre
