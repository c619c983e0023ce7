// Makes an instrumented function re-enterable. At entry the frame record is pushed on the
// runtime's frame chain; during a restart it is restored and control jumps to the call site that
// was active at the checkpoint. Every call site (a statement `call;` or `lhs = call;` left by
// split-calls) gets a number and a label; every exit pops the frame.
#include <functional>

#include "Pass.h"
#include "Store.h"
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
  // The reaching call of a site statement, or null.
  static const CallExpr *siteCall(PassContext &PC, const Stmt *S) {
    if (const CallExpr *Copied = copiedCall(S)) return PC.isReachingCall(Copied) ? Copied : nullptr;
    const auto *E = dyn_cast<Expr>(S);
    if (!E) return nullptr;
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(E))
      if (Cast->getType()->isVoidType()) E = Cast->getSubExpr()->IgnoreParens();
    if (const auto *Assign = dyn_cast<BinaryOperator>(E))
      if (Assign->getOpcode() == BO_Assign) E = Assign->getRHS()->IgnoreParenImpCasts();
    const auto *Call = dyn_cast<CallExpr>(E);
    return Call && PC.isReachingCall(Call) ? Call : nullptr;
  }

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
    unsigned Sites = 0;
    std::string Dispatch;

    std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *S, bool InBlock) {
      if (!S) return;
      if (const CallExpr *Call = siteCall(PC, S)) {
        unsigned Id = ++Sites;
        std::string Label = "__c3_L" + std::to_string(Id);
        Dispatch += " case " + std::to_string(Id) + ": goto " + Label + ";";
        bool IsPragma = Call->getDirectCallee() && isCheckpointSite(Call->getDirectCallee());
        std::string Before = "__c3_fr.h.site = " + std::to_string(Id) + "; " + Label + ": " +
                             (IsPragma ? "" : "__c3_call_expected = (__c3_function)(" + calleeText(PC, Call) + "); ");
        if (!InBlock) Before = "{ " + Before;
        R.InsertTextBefore(S->getBeginLoc(), Before);
        if (!InBlock) R.InsertTextAfter(Src.location(Src.fullEnd(S)), " }");
        return;
      }
      if (isa<Expr>(S)) return;
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
