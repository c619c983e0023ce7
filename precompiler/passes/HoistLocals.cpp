// The frame record of an instrumented function, and its call sites.
//
// A local or parameter that is a scalar whose address is never taken stays an ordinary variable
// (a "register local": the optimizer may keep it in a register). Every other one (arrays,
// structs, unions, volatile, address-taken and const-parameter variables, compound literals)
// lives in one record, `struct __c3_frame_F { struct __c3_frame h; ... } __c3_fr;`, declared
// first in the body; its references become `__c3_fr.x` and its declaration an assignment of its
// initializer, so no registration is ever jumped over when a restart re-enters the function.
//
// Each call site left by split-calls gets a number and a label. Just before it, the register
// locals in scope are saved into their members of the record; just after the label, where a
// restart jumps in, they are loaded back:
//
//   save(x); __c3_fr.h.site = N; __c3_LN: x = __c3_fr.x; call(args);
//
// A checkpoint is only ever taken inside a site's call, so the record then holds every live
// value, and code between sites (a hot loop that calls nothing that can reach a checkpoint) runs
// as in the plain build. A register local shadowed at some site, or a const one that cannot be
// redeclared without its const, lives in the record instead.
#include <functional>
#include <map>
#include <set>

#include "Pass.h"
#include "Sites.h"
#include "Store.h"
#include "Substatements.h"
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
    if (InTypeof)
      if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl())) InTypeofs.insert(VD);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->getOpcode() == UO_AddrOf)
      if (const auto *Ref = dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParens()))
        if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl())) AddressTaken.insert(VD);
    return true;
  }
  bool VisitDeclStmt(DeclStmt *DS) {
    DeclStmts.push_back(DS);
    for (const Decl *D : DS->decls()) Owner[D] = DS;
    return true;
  }
  bool VisitForStmt(ForStmt *For) {
    if (For->getInit()) ForInits.insert(For->getInit());
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) { return HasGoto = true; }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return HasGoto = true; }
  bool VisitCompoundLiteralExpr(CompoundLiteralExpr *CLE) {
    if (!CLE->isFileScope()) Literals.push_back(CLE);
    return true;
  }
  bool TraverseTypeOfExprTypeLoc(TypeOfExprTypeLoc TL) {
    ++InTypeof;
    bool Continue = RecursiveASTVisitor::TraverseTypeOfExprTypeLoc(TL);
    --InTypeof;
    return Continue;
  }

  std::vector<const VarDecl *> Locals;
  std::vector<const DeclRefExpr *> Refs;
  std::vector<const DeclStmt *> DeclStmts;
  std::map<const Decl *, const DeclStmt *> Owner;
  std::set<const Stmt *> ForInits;
  std::vector<const CompoundLiteralExpr *> Literals;
  std::set<const VarDecl *> AddressTaken;
  std::set<const VarDecl *> InTypeofs;  // named inside typeof(...)
  unsigned InTypeof = 0;
  bool HasGoto = false;
};

// A call site and the names in scope there, outermost first.
struct Site {
  const Stmt *S;                // the site statement, or the DeclStmt of a declarator site
  bool InBlock;
  const VarDecl *Assigned;      // the declarator a declarator site initializes, or the variable
                                // a site `x = call(args);` assigns without reading it first
  std::vector<const NamedDecl *> Visible;
  std::vector<const Stmt *> Loops;  // the loops around the site
};

class FrameBuilder {
 public:
  FrameBuilder(PassContext &PC, FunctionDecl *FD) : PC(PC), Ctx(PC.Ctx), FD(FD), Splice(PC.Source) {}

  void run() {
    Collector.TraverseStmt(FD->getBody());
    for (const DeclRefExpr *Ref : Collector.Refs)
      if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl())) Uses[VD].push_back(PC.Source.begin(Ref));
    findSites();
    classify();
    assignMembers();
    rewrite();
  }

 private:
  // ---- where each variable lives ---------------------------------------------------------

  // Every declaration of DS a local variable (so DS can be rewritten declarator by declarator)?
  static bool allLocalVariables(const DeclStmt *DS) {
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || !VD->hasLocalStorage()) return false;
    }
    return true;
  }

  bool canStayLocal(const VarDecl *VD) const {
    QualType T = VD->getType();
    QualType Canonical = T.getCanonicalType();
    if (!Canonical->isScalarType() || Canonical->isAtomicType() || Canonical.isVolatileQualified())
      return false;
    if (VD->hasAttrs() || Collector.AddressTaken.count(VD)) return false;
    if (!Canonical.isConstQualified()) return true;
    // A const one is redeclared without const (it is assigned when a restart jumps past its
    // declaration): only its own written const can go, and only in a declaration that can be
    // rewritten.
    if (isa<ParmVarDecl>(VD) || Collector.InTypeofs.count(VD)) return false;
    if (storageType(Ctx, T).getCanonicalType().isConstQualified()) return false;
    auto It = Collector.Owner.find(VD);
    return It != Collector.Owner.end() && !Collector.ForInits.count(It->second) &&
           allLocalVariables(It->second);
  }

  void classify() {
    // A variably modified parameter is read once, at entry, into its move-variable-arrays slot.
    for (const ParmVarDecl *P : FD->parameters())
      if (!P->getType()->isVariablyModifiedType()) InRecord[P] = !canStayLocal(P);
    for (const VarDecl *VD : Collector.Locals) InRecord[VD] = !canStayLocal(VD);
    // A variable shadowed at a site cannot be named there to be saved.
    for (const Site &S : Sites) {
      std::map<std::string, size_t> Innermost;
      for (size_t I = 0; I < S.Visible.size(); ++I) Innermost[S.Visible[I]->getNameAsString()] = I;
      for (size_t I = 0; I < S.Visible.size(); ++I)
        if (Innermost[S.Visible[I]->getNameAsString()] != I) demote(S.Visible[I]);
    }
    // A for-init is either left as written or becomes one comma expression of assignments.
    for (const DeclStmt *DS : Collector.DeclStmts) {
      if (!Collector.ForInits.count(DS)) continue;
      bool AnyInRecord = false;
      for (const Decl *D : DS->decls()) AnyInRecord |= isInRecord(D);
      if (AnyInRecord)
        for (const Decl *D : DS->decls()) demote(D);
    }
  }

  void demote(const Decl *D) {
    auto It = InRecord.find(dyn_cast<VarDecl>(D));
    if (It != InRecord.end()) It->second = true;
  }
  bool isInRecord(const Decl *D) const {
    auto It = InRecord.find(dyn_cast<VarDecl>(D));
    return It != InRecord.end() && It->second;
  }
  bool isRegisterLocal(const Decl *D) const {
    auto It = InRecord.find(dyn_cast<VarDecl>(D));
    return It != InRecord.end() && !It->second;
  }
  bool stripsConst(const VarDecl *VD) const {
    return isRegisterLocal(VD) && VD->getType().getCanonicalType().isConstQualified();
  }

  // ---- sites and scopes -------------------------------------------------------------------

  void findSites() {
    std::vector<const NamedDecl *> Scope(FD->param_begin(), FD->param_end());
    std::vector<const Stmt *> Loops;
    std::function<void(const DeclStmt *, bool)> Declare = [&](const DeclStmt *DS, bool InBlock) {
      for (const Decl *D : DS->decls()) {
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          // Rewritten as `T x; <site> x = call(args);`: x is in scope at its own site.
          Scope.push_back(VD);
          if (siteInitializer(PC, VD)) Sites.push_back({DS, InBlock, VD, Scope, Loops});
        } else if (const auto *Enum = dyn_cast<EnumDecl>(D)) {
          for (const EnumConstantDecl *E : Enum->enumerators()) Scope.push_back(E);
        } else if (const auto *ND = dyn_cast<NamedDecl>(D)) {
          if (!isa<TagDecl>(ND)) Scope.push_back(ND);  // tags have their own namespace
        }
      }
    };
    std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *S, bool InBlock) {
      if (!S) return;
      if (const auto *DS = dyn_cast<DeclStmt>(S)) return Declare(DS, InBlock);
      if (const CallExpr *Call = siteCall(PC, S)) {
        Sites.push_back({S, InBlock, assignedOnly(S, Call), Scope, Loops});
        return;
      }
      if (isa<Expr>(S)) return;
      size_t Mark = Scope.size();
      if (const auto *For = dyn_cast<ForStmt>(S))
        if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit())) Declare(Init, false);
      bool Loop = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S);
      if (Loop) Loops.push_back(S);
      forEachSubstatement(S, Walk);
      if (Loop) Loops.pop_back();
      if (isa<CompoundStmt>(S) || isa<ForStmt>(S)) Scope.resize(Mark);
    };
    Walk(FD->getBody(), true);
  }

  // The variable x of a site `x = call(args);` whose arguments do not read x.
  static const VarDecl *assignedOnly(const Stmt *S, const CallExpr *Call) {
    const auto *Assign = dyn_cast<BinaryOperator>(cast<Expr>(S)->IgnoreParens());
    if (!Assign || Assign->getOpcode() != BO_Assign) return nullptr;
    const auto *Ref = dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParenImpCasts());
    const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return VD && !refersTo(Call, VD) ? VD : nullptr;
  }
  static bool refersTo(const Stmt *S, const VarDecl *VD) {
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(S))
      if (Ref->getDecl() == VD) return true;
    for (const Stmt *Child : S->children())
      if (Child && refersTo(Child, VD)) return true;
    return false;
  }

  // Can VD's value at site S still be read after it? Yes if VD is named at or after the site, or
  // anywhere in a loop around the site that VD outlives (the next iteration); always when the
  // function has gotos. Conservative: a later assignment counts as a use.
  bool mayBeUsedAfter(const Site &S, const VarDecl *VD) const {
    if (Collector.HasGoto) return true;
    auto It = Uses.find(VD);
    if (It == Uses.end()) return false;
    const SourceText &Src = PC.Source;
    const unsigned SiteBegin = Src.begin(S.S);
    const unsigned Declared = isa<ParmVarDecl>(VD) ? 0 : Src.offset(VD->getLocation());
    for (unsigned Use : It->second) {
      if (Use >= SiteBegin) return true;
      for (const Stmt *Loop : S.Loops) {
        // A variable declared in the loop's body is a new one in each iteration.
        const Stmt *Body = loopBody(Loop);
        bool Outlives = Declared < Src.begin(Body) || Declared >= Src.end(Body);
        if (Outlives && Use >= Src.begin(Loop) && Use < Src.end(Loop)) return true;
      }
    }
    return false;
  }
  static const Stmt *loopBody(const Stmt *Loop) {
    if (const auto *For = dyn_cast<ForStmt>(Loop)) return For->getBody();
    if (const auto *While = dyn_cast<WhileStmt>(Loop)) return While->getBody();
    return cast<DoStmt>(Loop)->getBody();
  }

  // Register locals saved at S: those in scope that may be used after it, but not the one S
  // only assigns.
  std::vector<const VarDecl *> savedAt(const Site &S) const {
    std::vector<const VarDecl *> Saved;
    for (const NamedDecl *ND : S.Visible) {
      const auto *VD = dyn_cast<VarDecl>(ND);
      if (VD && VD != S.Assigned && isRegisterLocal(VD) && mayBeUsedAfter(S, VD)) Saved.push_back(VD);
    }
    return Saved;
  }

  // ---- the record ---------------------------------------------------------------------------

  void assignMembers() {
    std::set<const VarDecl *> Saved;
    for (const Site &S : Sites)
      for (const VarDecl *VD : savedAt(S)) Saved.insert(VD);
    std::set<std::string> Used{"h"};
    auto addMember = [&](const VarDecl *VD) {
      if (!isInRecord(VD) && !Saved.count(VD)) return;
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
  }

  std::string member(const VarDecl *VD) const { return "__c3_fr." + Member.at(VD); }

  // ---- the rewrite --------------------------------------------------------------------------

  void rewrite() {
    for (const DeclRefExpr *Ref : Collector.Refs) {
      const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
      if (VD && isInRecord(VD) && Member.count(VD)) Splice.replaceExpr(Ref, member(VD));
    }
    // A compound literal is an unnamed local: it moves into the record too, filled where the
    // literal is evaluated (innermost first, so nested literals are printed rewritten).
    unsigned LiteralCount = 0;
    for (auto It = Collector.Literals.rbegin(); It != Collector.Literals.rend(); ++It) {
      const CompoundLiteralExpr *CLE = *It;
      std::string Name = "__c3_literal" + std::to_string(++LiteralCount);
      Fields += " " + declareText(Ctx, storageType(Ctx, CLE->getType()), Name) + ";";
      std::string Target = "__c3_fr." + Name;
      Splice.replaceExpr(CLE, "(*(__builtin_memcpy(&" + Target + ", &" + Splice.print(CLE) +
                                  ", sizeof " + Target + "), &" + Target + "))");
    }
    std::map<const VarDecl *, const Site *> DeclaratorSites;
    std::map<const Site *, unsigned> Numbers;
    unsigned Count = 0;
    for (const Site &S : Sites) {
      Numbers[&S] = ++Count;
      if (isa<DeclStmt>(S.S)) DeclaratorSites[S.Assigned] = &S;
    }
    // Declarations: innermost first, so a declaration inside a statement expression in an
    // initializer is rewritten before the initializer is printed.
    for (auto It = Collector.DeclStmts.rbegin(); It != Collector.DeclStmts.rend(); ++It)
      rewriteDeclaration(*It, DeclaratorSites, Numbers);
    // Site statements last: they are printed with everything inside them already rewritten.
    for (const Site &S : Sites) {
      if (isa<DeclStmt>(S.S)) continue;
      std::string Text = sitePrefix(S, Numbers[&S]) + Splice.printFull(S.S);
      Splice.replaceStmt(S.S, S.InBlock ? Text : "{ " + Text + " }");
    }

    std::string Name = FD->getNameAsString();
    std::string Record = " struct __c3_frame_" + Name + " { struct __c3_frame h;" + Fields +
                         " } __c3_fr;";
    std::string Params;
    for (const ParmVarDecl *P : FD->parameters())
      if (isInRecord(P) && Member.count(P))
        Params += isAssignable(Ctx, P->getType())
                      ? " " + member(P) + " = " + P->getNameAsString() + ";"
                      : " __builtin_memcpy(&" + member(P) + ", &" + P->getNameAsString() +
                            ", sizeof " + member(P) + ");";

    const auto *Body = cast<CompoundStmt>(FD->getBody());
    std::string Text = Splice.print(Body);
    // Text starts with '{': the record and the parameter copies go right after it.
    Text.insert(1, Record + Params);
    PC.Rewrite.ReplaceText(SourceRange(Body->getBeginLoc(), Body->getEndLoc()), Text);
  }

  // Saves, number, label and loads that go just before the site's call.
  std::string sitePrefix(const Site &S, unsigned Number) const {
    std::string Saves, Loads;
    for (const VarDecl *VD : savedAt(S)) {
      std::string Name = VD->getNameAsString();
      // Copied by address so an uninitialized one draws no warning; `register` ones cannot be.
      Saves += VD->getStorageClass() == SC_Register
                   ? member(VD) + " = " + Name + "; "
                   : "__builtin_memcpy(&" + member(VD) + ", &" + Name + ", sizeof " + member(VD) + "); ";
      Loads += Name + " = " + member(VD) + "; ";
    }
    std::string Id = std::to_string(Number);
    return Saves + "__c3_fr.h.site = " + Id + "; __c3_L" + Id + ": " + Loads;
  }

  void rewriteDeclaration(const DeclStmt *DS, const std::map<const VarDecl *, const Site *> &DeclaratorSites,
                          const std::map<const Site *, unsigned> &Numbers) {
    bool HasSite = false, NeedsRewrite = false;
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD) continue;
      HasSite |= DeclaratorSites.count(VD) > 0;
      NeedsRewrite |= isInRecord(VD) || stripsConst(VD);
    }
    if (!HasSite && (!NeedsRewrite || !allLocalVariables(DS)))
      return;  // left as written (statics, externs and typedefs stay where they are)
    const bool ForInit = Collector.ForInits.count(DS) > 0;
    std::vector<std::string> Parts;
    for (const Decl *D : DS->decls()) {
      const auto *VD = cast<VarDecl>(D);
      auto SiteIt = DeclaratorSites.find(VD);
      const Site *S = SiteIt == DeclaratorSites.end() ? nullptr : SiteIt->second;
      std::string Prefix = S ? sitePrefix(*S, Numbers.at(S)) : std::string();
      if (isRegisterLocal(VD)) {
        std::string Declaration = declareText(Ctx, storageType(Ctx, VD->getType()), VD->getNameAsString());
        if (S) {
          Parts.push_back(Declaration);
          Parts.push_back(Prefix + VD->getNameAsString() + " = " + Splice.print(VD->getInit()));
        } else {
          Parts.push_back(Declaration + (VD->hasInit() ? " = " + Splice.print(VD->getInit()) : ""));
        }
      } else if (VD->hasInit()) {
        Parts.push_back(Prefix + initialize(VD, member(VD)));
      }
    }
    const char *Separator = ForInit ? ", " : "; ";
    std::string Text;
    for (size_t I = 0; I < Parts.size(); ++I) Text += (I ? Separator : "") + Parts[I];
    Splice.replaceStmt(DS, Text + ";");
  }

  // `Target = init` in a form valid for every type: arrays and braced initializers are copied
  // from a compound literal of the variable's type.
  std::string initialize(const VarDecl *VD, const std::string &Target) const {
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

  PassContext &PC;
  ASTContext &Ctx;
  FunctionDecl *FD;
  Splicer Splice;
  LocalCollector Collector;
  std::vector<Site> Sites;
  std::map<const VarDecl *, bool> InRecord;
  std::map<const VarDecl *, std::string> Member;
  std::map<const VarDecl *, std::vector<unsigned>> Uses;  // offsets of the references
  std::string Fields;
};

class HoistLocalsPass : public Pass {
 public:
  const char *name() const override { return "hoist-locals"; }

  void run(PassContext &PC) override {
    PC.forEachInstrumentedFunction([&](FunctionDecl *FD) { FrameBuilder(PC, FD).run(); });
  }
};

}  // namespace

std::unique_ptr<Pass> createHoistLocalsPass() { return std::make_unique<HoistLocalsPass>(); }

}  // namespace c3pre
