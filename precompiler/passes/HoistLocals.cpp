// Moves all parameters and local variables of an instrumented function into one frame record,
// `struct __c3_frame_F { struct __c3_frame h; ... } __c3_fr;`, declared first in the body.
// References become `__c3_fr.x`, declarations become assignments of their initializers, and the
// parameters are copied in at entry. One record makes saving a frame a single copy, and no
// declaration is ever jumped over when a restart re-enters the function.
#include <map>
#include <set>

#include "Pass.h"
#include "Store.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

// The type to store a variable in: no top-level or element const, since the record is written
// by assignments and by restores.
QualType storageType(ASTContext &Ctx, QualType T) {
  // typeof(expr) names variables that live in the record now: spell the type itself.
  while (isa<TypeOfExprType>(T.getTypePtr()) || isa<TypeOfType>(T.getTypePtr()))
    T = T.getSingleStepDesugaredType(Ctx);
  if (const auto *CA = Ctx.getAsConstantArrayType(T)) {
    QualType Elem = storageType(Ctx, CA->getElementType());
    return Ctx.getConstantArrayType(Elem, CA->getSize(), nullptr, ArrayType::Normal, 0);
  }
  T.removeLocalConst();
  return T;
}

class LocalCollector : public RecursiveASTVisitor<LocalCollector> {
 public:
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) && VD->getName() != kStoreTemporary)
      Locals.push_back(VD);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    Refs.push_back(Ref);
    return true;
  }
  bool VisitDeclStmt(DeclStmt *DS) {
    DeclStmts.push_back(DS);
    return true;
  }
  bool VisitForStmt(ForStmt *For) {
    if (For->getInit()) ForInits.insert(For->getInit());
    return true;
  }
  std::set<const Stmt *> ForInits;
  bool VisitCompoundLiteralExpr(CompoundLiteralExpr *CLE) {
    if (!CLE->isFileScope()) Literals.push_back(CLE);
    return true;
  }
  std::vector<const CompoundLiteralExpr *> Literals;
  std::vector<const VarDecl *> Locals;
  std::vector<const DeclRefExpr *> Refs;
  std::vector<const DeclStmt *> DeclStmts;
};

class HoistLocalsPass : public Pass {
 public:
  const char *name() const override { return "hoist-locals"; }

  void run(PassContext &PC) override {
    PC.forEachInstrumentedFunction([&](FunctionDecl *FD) { hoist(PC, FD); });
  }

 private:
  void hoist(PassContext &PC, FunctionDecl *FD) {
    ASTContext &Ctx = PC.Ctx;
    LocalCollector Collector;
    Collector.TraverseStmt(FD->getBody());

    std::map<const VarDecl *, std::string> Member;
    std::set<std::string> Used{"h"};
    std::string Fields;
    auto addMember = [&](const VarDecl *VD) {
      std::string Name = VD->getNameAsString();
      if (Name.empty()) return;
      std::string Unique = Name;
      for (unsigned N = 2; Used.count(Unique); ++N) Unique = Name + "_" + std::to_string(N);
      Used.insert(Unique);
      Member[VD] = Unique;
      Fields += " " + declareText(Ctx, storageType(Ctx, VD->getType()), Unique);
      // _Alignas / aligned() on the variable: the member keeps it.
      CharUnits Natural = Ctx.getTypeAlignInChars(VD->getType());
      CharUnits Declared = Ctx.getDeclAlign(VD);
      if (VD->hasAttr<AlignedAttr>() && Declared > Natural)
        Fields += " __attribute__((aligned(" + std::to_string(Declared.getQuantity()) + ")))";
      Fields += ";";
    };
    for (const ParmVarDecl *P : FD->parameters()) addMember(P);
    for (const VarDecl *VD : Collector.Locals) addMember(VD);

    Splicer Splice(PC.Source);
    for (const DeclRefExpr *Ref : Collector.Refs) {
      const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
      auto It = VD ? Member.find(VD) : Member.end();
      if (It != Member.end()) Splice.replaceExpr(Ref, "__c3_fr." + It->second);
    }
    // A compound literal is an unnamed local: it moves into the record too, filled where the
    // literal is evaluated (innermost first, so nested literals are printed rewritten).
    unsigned LiteralCount = 0;
    for (auto It = Collector.Literals.rbegin(); It != Collector.Literals.rend(); ++It) {
      const CompoundLiteralExpr *CLE = *It;
      std::string Member = "__c3_literal" + std::to_string(++LiteralCount);
      Fields += " " + declareText(Ctx, storageType(Ctx, CLE->getType()), Member) + ";";
      std::string Target = "__c3_fr." + Member;
      Splice.replaceExpr(CLE, "(*(__builtin_memcpy(&" + Target + ", &" + Splice.print(CLE) +
                                  ", sizeof " + Target + "), &" + Target + "))");
    }
    // Declarations become assignments: one statement each (a call site stays a statement of its
    // own), or one comma expression in a for-init.
    // Innermost first: a declaration inside a statement expression in an initializer must be
    // rewritten before the initializer is printed.
    for (auto It = Collector.DeclStmts.rbegin(); It != Collector.DeclStmts.rend(); ++It) {
      const DeclStmt *DS = *It;
      std::vector<std::string> Assignments;
      bool AllHoisted = true;
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || !Member.count(VD)) {
          AllHoisted = false;
          continue;
        }
        if (!VD->hasInit()) continue;
        Assignments.push_back(initialize(Ctx, Splice, VD, "__c3_fr." + Member[VD]));
      }
      if (!AllHoisted) continue;  // statics, externs, typedefs stay where they are
      const char *Separator = Collector.ForInits.count(DS) ? ", " : "; ";
      std::string Text;
      for (size_t I = 0; I < Assignments.size(); ++I) Text += (I ? Separator : "") + Assignments[I];
      Splice.replaceStmt(DS, Text + ";");
    }

    std::string Name = FD->getNameAsString();
    std::string Record = " struct __c3_frame_" + Name + " { struct __c3_frame h;" + Fields +
                         " } __c3_fr;";
    std::string Params;
    for (const ParmVarDecl *P : FD->parameters())
      if (Member.count(P))
        Params += isAssignable(Ctx, P->getType())
                      ? " __c3_fr." + Member[P] + " = " + P->getNameAsString() + ";"
                      : " __builtin_memcpy(&__c3_fr." + Member[P] + ", &" + P->getNameAsString() +
                            ", sizeof __c3_fr." + Member[P] + ");";

    const auto *Body = cast<CompoundStmt>(FD->getBody());
    std::string Text = Splice.print(Body);
    // Text starts with '{': the record and the parameter copies go right after it.
    Text.insert(1, Record + Params);
    PC.Rewrite.ReplaceText(SourceRange(Body->getBeginLoc(), Body->getEndLoc()), Text);
  }

  // `Target = init` in a form valid for every type: arrays and braced initializers are copied
  // from a compound literal of the variable's type.
  static std::string initialize(ASTContext &Ctx, const Splicer &Splice, const VarDecl *VD,
                                const std::string &Target) {
    const Expr *Init = VD->getInit();
    std::string InitText = Splice.print(Init);
    QualType T = storageType(Ctx, VD->getType());
    bool Braced = isa<InitListExpr>(Init->IgnoreImplicit());
    if (T->isArrayType()) {
      std::string Literal = "(" + declareText(Ctx, T, "") + ")" + (Braced ? InitText : "{" + InitText + "}");
      return "__builtin_memcpy(&" + Target + ", &" + Literal + ", sizeof " + Target + ")";
    }
    if (Braced) InitText = "(" + declareText(Ctx, T, "") + ")" + InitText;
    return storeText(Ctx, VD->getType(), Target, InitText);
  }
};

}  // namespace

std::unique_ptr<Pass> createHoistLocalsPass() { return std::make_unique<HoistLocalsPass>(); }

}  // namespace c3pre
