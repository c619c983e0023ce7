#include "Sites.h"

#include "Store.h"

using namespace clang;

namespace c3pre {

const CallExpr *siteCall(const PassContext &PC, const Stmt *S) {
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

const CallExpr *siteInitializer(const PassContext &PC, const VarDecl *VD) {
  if (!VD->hasLocalStorage() || !VD->hasInit()) return nullptr;
  const auto *Call = dyn_cast<CallExpr>(VD->getInit()->IgnoreParenImpCasts());
  return Call && PC.isReachingCall(Call) ? Call : nullptr;
}

}  // namespace c3pre
