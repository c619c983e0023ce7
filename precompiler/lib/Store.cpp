#include "Store.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

using namespace clang;

namespace c3pre {

bool isAssignable(const ASTContext &Ctx, QualType T) {
  T = Ctx.getBaseElementType(T);
  if (T.isConstQualified()) return false;
  if (const auto *RT = T->getAs<RecordType>())
    for (const FieldDecl *Field : RT->getDecl()->fields())
      if (!isAssignable(Ctx, Field->getType())) return false;
  return true;
}

std::string declareText(const ASTContext &Ctx, QualType T, const std::string &Name) {
  PrintingPolicy Policy(Ctx.getLangOpts());
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  T.print(OS, Policy, Name);
  OS.flush();
  return Out;
}

std::string storeText(const ASTContext &Ctx, QualType T, const std::string &Target,
                      const std::string &Value) {
  if (isAssignable(Ctx, T)) return Target + " = " + Value;
  return "({ " + declareText(Ctx, T.getUnqualifiedType(), kStoreTemporary) + " = " + Value +
         "; __builtin_memcpy(&" + Target + ", &" + kStoreTemporary + ", sizeof " +
         kStoreTemporary + "); })";
}

const CallExpr *copiedCall(const Stmt *S) {
  const auto *E = dyn_cast<Expr>(S);
  if (!E) return nullptr;
  const auto *SE = dyn_cast<StmtExpr>(E->IgnoreParens());
  if (!SE || SE->getSubStmt()->body_empty()) return nullptr;
  const auto *DS = dyn_cast<DeclStmt>(SE->getSubStmt()->body_front());
  if (!DS || !DS->isSingleDecl()) return nullptr;
  const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!VD || VD->getName() != kStoreTemporary || !VD->hasInit()) return nullptr;
  return dyn_cast<CallExpr>(VD->getInit()->IgnoreParenImpCasts());
}

}  // namespace c3pre
