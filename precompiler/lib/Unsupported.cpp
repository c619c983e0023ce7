#include "Unsupported.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

bool isSetjmpFamily(StringRef Name) {
  return Name == "setjmp" || Name == "_setjmp" || Name == "__sigsetjmp" || Name == "sigsetjmp" ||
         Name == "longjmp" || Name == "_longjmp" || Name == "siglongjmp" || Name == "__longjmp_chk";
}

class UnsupportedFinder : public RecursiveASTVisitor<UnsupportedFinder> {
 public:
  UnsupportedFinder(const UnsupportedReport &Report, const FunctionDecl *FD)
      : Report(Report), Function(FD) {}

  // Variable-length arrays move to the c3 heap (move-variable-arrays), one declaration at a time.
  bool VisitDeclStmt(DeclStmt *DS) {
    if (DS->isSingleDecl()) return true;
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getType()->isVariablyModifiedType())
        Report(VD->getLocation(),
               "variable-length array '" + VD->getNameAsString() +
                   "' declared with other variables in function '" +
                   Function->getNameAsString() + "', which can reach a checkpoint",
               "declare '" + VD->getNameAsString() + "' in a declaration of its own");
    return true;
  }

  bool VisitTypedefNameDecl(TypedefNameDecl *TD) {
    if (TD->getUnderlyingType()->isVariablyModifiedType())
      Report(TD->getLocation(),
             "variably modified type '" + TD->getNameAsString() + "' declared in function '" +
                 Function->getNameAsString() + "', which can reach a checkpoint",
             "spell the array type where it is used instead of naming it");
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    VisitVarDeclType(VD);
    if (VD->getType()->isVariablyModifiedType() && VD->isStaticLocal())
      Report(VD->getLocation(),
             "static variably modified variable '" + VD->getNameAsString() + "'",
             "make it a plain local");
    else if (VD->getTSCSpec() != TSCS_unspecified)
      Report(VD->getLocation(), "thread-local variable in a function that can "
                  "reach a checkpoint", "c3 programs are single-threaded: drop _Thread_local");
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier()) return true;
    StringRef Name = Callee->getName();
    if (isSetjmpFamily(Name))
      Report(Call->getBeginLoc(),
                  "'" + Name.str() + "' in function '" + Function->getNameAsString() +
                      "', which can reach a checkpoint",
                  "setjmp/longjmp across frames c3 must re-enter is not supported; return an "
                  "error code through the callers instead");
    return true;
  }

  // A compound literal moves into the frame record like a variable (hoist-locals).
  bool VisitCompoundLiteralExpr(CompoundLiteralExpr *CLE) {
    if (CLE->isFileScope()) return true;
    if (const NamedDecl *Local = localTypeIn(CLE->getType()))
      reportLocalType(CLE->getBeginLoc(), "compound literal has", Local);
    return true;
  }

  bool VisitIndirectGotoStmt(IndirectGotoStmt *S) {
    Report(S->getBeginLoc(), "computed goto in a function that can reach a checkpoint",
                "use a switch over an integer state instead of label addresses");
    return true;
  }

  // Local types are fine unless a variable that moves into the frame record needs them: the
  // record is declared before them.
  bool VisitVarDeclType(VarDecl *VD) {
    if (!VD->hasLocalStorage()) return true;
    if (const NamedDecl *Local = localTypeIn(VD->getType()))
      reportLocalType(VD->getLocation(), "variable '" + VD->getNameAsString() + "' has", Local);
    return true;
  }

 private:
  void reportLocalType(SourceLocation Loc, const std::string &What, const NamedDecl *Local) {
    Report(Loc,
                What + " a type declared inside function '" + Function->getNameAsString() +
                    "', which can reach a checkpoint",
                "move the declaration of " +
                    (Local->getName().empty() ? std::string("its type")
                                              : "'" + Local->getNameAsString() + "'") +
                    " to file scope");
  }

  static bool isLocal(const Decl *D) { return D->getDeclContext()->isFunctionOrMethod(); }

  // The first function-local tag or typedef that T is built from, if any.
  static const NamedDecl *localTypeIn(QualType T) {
    while (true) {
      if (const auto *TT = T->getAs<TypedefType>())
        if (isLocal(TT->getDecl())) return TT->getDecl();
      if (const auto *Tag = T->getAsTagDecl())
        if (isLocal(Tag)) return Tag;
      if (const auto *P = T->getAs<PointerType>()) {
        T = P->getPointeeType();
      } else if (const auto *A = T->getAsArrayTypeUnsafe()) {
        T = A->getElementType();
      } else {
        return nullptr;
      }
    }
  }

  const UnsupportedReport &Report;
  const FunctionDecl *Function;
};

}  // namespace

void findUnsupported(const FunctionDecl *FD, const UnsupportedReport &Report) {
  if (FD->isVariadic())
    Report(FD->getLocation(),
           "variadic function '" + FD->getNameAsString() + "' can reach a checkpoint",
           "pass the extra arguments in an array or a struct instead of '...'");
  UnsupportedFinder Finder(Report, FD);
  Finder.TraverseDecl(const_cast<FunctionDecl *>(FD));
}

bool hasUnsupported(const FunctionDecl *FD) {
  bool Found = false;
  findUnsupported(FD, [&](SourceLocation, const std::string &, const std::string &) { Found = true; });
  return Found;
}

}  // namespace c3pre
