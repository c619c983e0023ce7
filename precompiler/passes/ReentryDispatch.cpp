// Makes an instrumented function re-enterable. At entry the frame record is pushed on the
// runtime's frame chain; during a restart it is restored and control jumps to the label of the
// call site that was active at the checkpoint (hoist-locals numbered and labelled the sites).
// Each site's call announces its callee, so the callee knows it was entered by a call that a
// restart replays; every exit pops the frame.
#include <functional>
#include <map>

#include "Pass.h"
#include "Sites.h"
#include "Substatements.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

class ReentryDispatchPass : public Pass {
 public:
  const char *name() const override { return "reentry-dispatch"; }

  void run(PassContext &PC) override {
    PC.forEachInstrumentedFunction([&](FunctionDecl *FD) { instrument(PC, FD); });
  }

 private:
  // The labels hoist-locals put at the sites: `__c3_L<number>`.
  class SiteLabels : public RecursiveASTVisitor<SiteLabels> {
   public:
    bool VisitLabelStmt(LabelStmt *L) {
      StringRef Name = L->getName();
      unsigned Number = 0;
      if (Name.consume_front("__c3_L") && !Name.getAsInteger(10, Number)) Numbers[Number] = L->getName();
      return true;
    }
    std::map<unsigned, std::string> Numbers;
  };

  // rename-main runs in the same stage: generated text must already use main's new name.
  static std::string ownName(const FunctionDecl *FD) {
    return FD->isMain() ? "__c3_user_main" : FD->getNameAsString();
  }

  // The callee as written (side-effect free after split-calls), evaluated once more for the flag.
  static std::string calleeText(PassContext &PC, const CallExpr *Call) {
    if (const FunctionDecl *Direct = Call->getDirectCallee()) return ownName(Direct);
    return PC.Source.text(Call->getCallee());
  }

  void instrument(PassContext &PC, FunctionDecl *FD) {
    const auto *Body = cast<CompoundStmt>(FD->getBody());
    Rewriter &R = PC.Rewrite;
    const SourceText &Src = PC.Source;

    std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *S, bool InBlock) {
      if (!S) return;
      if (const CallExpr *Call = siteCall(PC, S)) {
        if (Call->getDirectCallee() && isCheckpointSite(Call->getDirectCallee())) return;
        std::string Announce = "__c3_call_expected = (__c3_function)(" + calleeText(PC, Call) + "); ";
        if (InBlock) {
          R.InsertTextBefore(S->getBeginLoc(), Announce);
        } else {
          R.InsertTextBefore(S->getBeginLoc(), "{ " + Announce);
          R.InsertTextAfter(Src.location(Src.fullEnd(S)), " }");
        }
        return;
      }
      if (isa<Expr>(S)) return;
      // Text right after a site's label is still under that label.
      if (const auto *Label = dyn_cast<LabelStmt>(S))
        if (StringRef(Label->getName()).startswith("__c3_L")) return Walk(Label->getSubStmt(), true);
      if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
        R.InsertTextBefore(Ret->getBeginLoc(), "{ __c3_top = __c3_fr.h.prev; ");
        R.InsertTextAfter(Src.location(Src.fullEnd(Ret)), " }");
        return;
      }
      forEachSubstatement(S, Walk);
    };
    // The first statement is the frame record declared by hoist-locals.
    auto It = Body->body_begin();
    if (It == Body->body_end() || !isa<DeclStmt>(*It)) return;
    const Stmt *Record = *It;
    for (++It; It != Body->body_end(); ++It) Walk(*It, true);

    SiteLabels Labels;
    Labels.TraverseStmt(const_cast<CompoundStmt *>(Body));
    std::string Dispatch;
    for (const auto &[Number, Label] : Labels.Numbers)
      Dispatch += " case " + std::to_string(Number) + ": goto " + Label + ";";

    std::string Entry =
        " __c3_fr.h.prev = __c3_top; __c3_fr.h.site = 0; __c3_fr.h.size = sizeof __c3_fr;"
        " __c3_fr.h.function = \"" + FD->getNameAsString() + "\";"
        " __c3_fr.h.entered_by_replayable_call = __c3_call_expected == (__c3_function)" + ownName(FD) + ";"
        " __c3_call_expected = 0;"
        " __c3_top = &__c3_fr.h;"
        " if (__builtin_expect(__c3_restoring, 0)) { __c3_frame_restore(&__c3_fr.h);"
        " switch (__c3_fr.h.site) {" + Dispatch + " default: __c3_bad_site(&__c3_fr.h); } }";
    R.InsertTextAfter(Src.location(Src.end(Record)), Entry);
    // Falling off the end of the body pops the frame too.
    R.InsertTextBefore(Body->getRBracLoc(), " __c3_top = __c3_fr.h.prev; ");
  }
};

}  // namespace

std::unique_ptr<Pass> createReentryDispatchPass() { return std::make_unique<ReentryDispatchPass>(); }

}  // namespace c3pre
