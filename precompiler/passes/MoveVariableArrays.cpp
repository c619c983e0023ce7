// Variable-length arrays and alloca in instrumented functions move to the c3 heap. A restart
// jumps to call sites, and C forbids jumping into the scope of a variably modified variable; the
// frame record, a struct, cannot hold one either. So each variably modified variable `v` (a VLA,
// a pointer to one, a parameter declared `double a[n][m]`) becomes a slot `void *__c3_vK`
// declared at the top of the function with its array sizes `long __c3_vK_dJ`, evaluated where
// the declaration stood; both are ordinary locals the later passes save like any other. Every
// use of `v` reads the slot through a cast to the variable's type with those sizes:
//
//   double a[n][m];   ->  __c3_v1_d0 = (n), __c3_v1_d1 = (m),
//                         __c3_v1 = __c3_vla_alloc(__c3_v1, sizeof(double[__c3_v1_d0][__c3_v1_d1]));
//   a[i][j] = 0;      ->  (*(double (*)[__c3_v1_d0][__c3_v1_d1])__c3_v1)[i][j] = 0;
//
// An array's storage is a c3 heap block, part of every checkpoint; reaching the declaration again
// (a loop) replaces it, and every return frees it, as alloca's blocks (`__c3_alloca`). Uses in
// sizeof keep their meaning (the cast's type has the same sizes).
#include <algorithm>
#include <map>
#include <vector>

#include "Pass.h"
#include "Store.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

// The sizes of the variable-length arrays in T, outermost first.
void collectSizes(const ASTContext &Ctx, QualType T, std::vector<const Expr *> &Sizes) {
  if (const auto *VA = Ctx.getAsVariableArrayType(T)) {
    Sizes.push_back(VA->getSizeExpr());
    collectSizes(Ctx, VA->getElementType(), Sizes);
  } else if (const auto *A = Ctx.getAsArrayType(T)) {
    collectSizes(Ctx, A->getElementType(), Sizes);
  } else if (const auto *P = T->getAs<PointerType>()) {
    collectSizes(Ctx, P->getPointeeType(), Sizes);
  }
}

// T in declarator syntax around Inner, its variable sizes spelled as Dims (in collectSizes order).
std::string spell(const ASTContext &Ctx, QualType T, std::string Inner,
                  const std::vector<std::string> &Dims, size_t &Next) {
  if (!T->isVariablyModifiedType()) return declareText(Ctx, T, Inner);
  auto arrayOf = [&](const std::string &Size, QualType Element) {
    if (!Inner.empty() && Inner[0] == '*') Inner = "(" + Inner + ")";
    return spell(Ctx, Element, Inner + "[" + Size + "]", Dims, Next);
  };
  if (const auto *VA = Ctx.getAsVariableArrayType(T)) {
    const std::string &Size = Dims[Next++];
    return arrayOf(Size, VA->getElementType());
  }
  if (const auto *CA = Ctx.getAsConstantArrayType(T))
    return arrayOf(std::to_string(CA->getSize().getZExtValue()), CA->getElementType());
  if (const auto *P = T->getAs<PointerType>()) {
    std::string Qualifiers = T.getLocalQualifiers().getAsString();
    return spell(Ctx, P->getPointeeType(), "*" + (Qualifiers.empty() ? "" : Qualifiers + " ") + Inner,
                 Dims, Next);
  }
  return declareText(Ctx, T, Inner);
}

struct Moved {
  const VarDecl *Var;
  std::string Slot;                 // __c3_vK
  std::vector<const Expr *> Sizes;  // as written
  std::vector<std::string> Dims;    // __c3_vK_dJ
  std::string Type;                 // the variable's type with Dims, as a cast or sizeof spells it
  std::string PointerType;          // a pointer to it
  bool Array;                       // storage in the heap (else the slot holds the pointer)
};

class Finder : public RecursiveASTVisitor<Finder> {
 public:
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->getType()->isVariablyModifiedType() && VD->hasLocalStorage()) Vars.push_back(VD);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl())) Uses[VD].push_back(Ref);
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->getIdentifier() &&
        (Callee->getName() == "alloca" || Callee->getName().startswith("__builtin_alloca")))
      Allocas.push_back(Call);
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *R) {
    Returns.push_back(R);
    return true;
  }
  std::vector<const VarDecl *> Vars;
  std::map<const VarDecl *, std::vector<const DeclRefExpr *>> Uses;
  std::vector<const CallExpr *> Allocas;
  std::vector<const ReturnStmt *> Returns;
};

class MoveVariableArraysPass : public Pass {
 public:
  const char *name() const override { return "move-variable-arrays"; }

  void run(PassContext &PC) override {
    PC.forEachInstrumentedFunction([&](FunctionDecl *FD) { move(PC, FD); });
  }

 private:
  void move(PassContext &PC, FunctionDecl *FD) {
    auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
    if (!Body) return;
    Finder F;
    for (ParmVarDecl *P : FD->parameters()) F.VisitVarDecl(P);
    F.TraverseStmt(Body);
    if (F.Vars.empty() && F.Allocas.empty()) return;
    const ASTContext &Ctx = PC.Ctx;
    const SourceText &Src = PC.Source;
    Rewriter &R = PC.Rewrite;

    std::vector<Moved> All;
    for (const VarDecl *VD : F.Vars) {
      Moved M{VD, "__c3_v" + std::to_string(++Counter), {}, {}, {}, {}, false};
      collectSizes(Ctx, VD->getType(), M.Sizes);
      for (size_t J = 0; J < M.Sizes.size(); ++J) M.Dims.push_back(M.Slot + "_d" + std::to_string(J));
      size_t Next = 0;
      M.PointerType = spell(Ctx, VD->getType(), "*", M.Dims, Next);
      Next = 0;
      M.Type = spell(Ctx, VD->getType(), "", M.Dims, Next);
      M.Array = Ctx.getAsArrayType(VD->getType()) != nullptr;
      All.push_back(M);
    }
    // Uses first: the sizes and initializers below are copied with them applied. A pointer the
    // function only reads is read as a value (the slot stays a register); one it assigns or
    // takes the address of is used through the slot's address.
    for (const Moved &M : All) {
      const std::vector<const DeclRefExpr *> &Uses = F.Uses[M.Var];
      bool OnlyRead = std::all_of(Uses.begin(), Uses.end(), [&](const DeclRefExpr *Ref) {
        auto Parents = PC.Ctx.getParents(*Ref);
        const auto *Cast = Parents.empty() ? nullptr : Parents[0].get<ImplicitCastExpr>();
        return Cast && Cast->getCastKind() == CK_LValueToRValue;
      });
      std::string Use;
      if (M.Array)
        Use = "(*(" + M.PointerType + ")" + M.Slot + ")";
      else if (OnlyRead)
        Use = "((" + M.Type + ")" + M.Slot + ")";
      else
        Use = "(*(" + M.PointerType + ")&" + M.Slot + ")";
      for (const DeclRefExpr *Ref : Uses)
        R.ReplaceText(Ref->getLocation(), unsigned(M.Var->getName().size()), Use);
    }
    for (const CallExpr *Call : F.Allocas) {
      unsigned CalleeEnd = Src.end(Call->getCallee());
      size_t Paren = Src.buffer().find('(', CalleeEnd);
      R.ReplaceText(Src.location(Src.begin(Call)), unsigned(Paren + 1 - Src.begin(Call)),
                    "__c3_alloca(&__c3_allocas, ");
    }

    auto rewritten = [&](const Expr *E) {
      return R.getRewrittenText(
          CharSourceRange::getCharRange(E->getBeginLoc(), Src.location(Src.end(E))));
    };
    auto dimsText = [&](const Moved &M) {
      std::string Out;
      for (size_t J = 0; J < M.Sizes.size(); ++J)
        Out += M.Dims[J] + " = (" + rewritten(M.Sizes[J]) + "), ";
      return Out;
    };

    // Slots at the top of the body; parameters are copied into theirs there.
    std::string Top, Frees;
    for (const Moved &M : All) {
      Top += " void *" + M.Slot + " = 0;";
      for (const std::string &D : M.Dims) Top += " long " + D + ";";
      if (M.Array) Frees += " __c3_vla_free(" + M.Slot + ");";
    }
    if (!F.Allocas.empty()) {
      Top += " void *__c3_allocas = 0;";
      Frees += " __c3_alloca_free(&__c3_allocas);";
    }
    for (const Moved &M : All) {
      if (!isa<ParmVarDecl>(M.Var)) continue;
      Top += " " + dimsText(M) + M.Slot + " = (void *)" + M.Var->getName().str() + ";";
    }
    R.InsertTextAfterToken(Body->getLBracLoc(), Top);

    // Declarations: where each stood, its sizes are evaluated and its storage allocated.
    for (const Moved &M : All) {
      if (isa<ParmVarDecl>(M.Var)) continue;
      const DeclStmt *DS = declarationOf(Body, M.Var);
      if (!DS) continue;
      std::string Text = dimsText(M);
      if (M.Array)
        Text += M.Slot + " = __c3_vla_alloc(" + M.Slot + ", sizeof(" + M.Type + "))";
      else if (const Expr *Init = M.Var->getInit())
        Text += "*(" + M.PointerType + ")&" + M.Slot + " = (" + rewritten(Init) + ")";
      else
        Text += "(void)0";
      R.ReplaceText(SourceRange(DS->getBeginLoc(), Src.location(Src.fullEnd(DS) - 1)), Text + ";");
    }

    // Every way out of the function frees the storage; a return's value is computed first.
    if (Frees.empty()) return;
    QualType Result = FD->getReturnType();
    unsigned Value = 0;
    for (const ReturnStmt *Ret : F.Returns) {
      SourceLocation Keyword = Ret->getReturnLoc();
      unsigned Semicolon = Src.fullEnd(Ret) - 1;
      const Expr *E = Ret->getRetValue();
      if (E && !Result->isVoidType()) {
        std::string Name = "__c3_rv" + std::to_string(++Value);
        R.ReplaceText(Keyword, 6, "{ " + declareText(Ctx, Result, Name) + " = (");
        R.ReplaceText(Src.location(Semicolon), 1, ");" + Frees + " return " + Name + "; }");
      } else if (E) {  // `return f();` in a void function
        R.ReplaceText(Keyword, 6, "{ (void)(");
        R.ReplaceText(Src.location(Semicolon), 1, ");" + Frees + " return; }");
      } else {
        R.ReplaceText(Keyword, 6, "{" + Frees + " return");
        R.ReplaceText(Src.location(Semicolon), 1, "; }");
      }
    }
    R.InsertTextBefore(Body->getRBracLoc(), Frees + " ");
  }

  static const DeclStmt *declarationOf(const Stmt *S, const VarDecl *VD) {
    if (!S) return nullptr;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      if (DS->isSingleDecl() && DS->getSingleDecl() == VD) return DS;
    for (const Stmt *Child : S->children())
      if (const DeclStmt *Found = declarationOf(Child, VD)) return Found;
    return nullptr;
  }

  unsigned Counter = 0;
};

}  // namespace

std::unique_ptr<Pass> createMoveVariableArraysPass() {
  return std::make_unique<MoveVariableArraysPass>();
}

}  // namespace c3pre
