// Makes every call that may reach a checkpoint a statement of its own, `call(args);` or
// `lhs = call(args);`, whose callee, arguments and left-hand side have no side effects. Replay
// re-issues exactly that statement, so nothing is evaluated twice and no partial result of an
// enclosing expression has to survive a restart.
//
// Expressions are lowered in C's evaluation order: calls move into temporaries declared just
// before the statement; `&&`, `||`, `?:` and `,` become if/else and sequences so their
// conditional evaluation is kept; loop conditions and increments move into the loop body.
#include <functional>

#include "Diagnostics.h"
#include "Pass.h"
#include "Store.h"
#include "Substatements.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

class FunctionSplitter {
 public:
  FunctionSplitter(PassContext &PC, const FunctionDecl *FD)
      : PC(PC), Function(FD), Splice(PC.Source) {}

  // Returns the rewritten body text, or an empty string when nothing changed.
  std::string run() {
    const Stmt *Body = Function->getBody();
    visit(Body, true);
    if (Splice.empty() || Failed) return std::string();
    return Splice.print(Body);
  }

  bool failed() const { return Failed; }

 private:
  struct Lowered {
    std::vector<std::string> Decls;  // temporaries
    std::vector<std::string> Pre;    // statements that run before the expression
  };

  // ---- classification ----------------------------------------------------------------------

  bool isReachingCall(const Expr *E) const {
    const auto *Call = dyn_cast<CallExpr>(E);
    return Call && PC.isReachingCall(Call);
  }

  // Does evaluating E possibly run a reaching call? Unevaluated operands (sizeof) do not.
  bool containsReachingCall(const Stmt *S) const {
    if (!S) return false;
    if (const auto *E = dyn_cast<Expr>(S))
      if (isReachingCall(E)) return true;
    if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(S)) {
      (void)U;
      return false;
    }
    for (const Stmt *Child : S->children())
      if (containsReachingCall(Child)) return true;
    return false;
  }

  // Compound literals count: hoist-locals turns them into a copy into the frame record, which
  // must not run again when a call site is re-issued.
  bool hasSideEffects(const Expr *E) const {
    return E->HasSideEffects(PC.Ctx) || containsCompoundLiteral(E);
  }

  static bool containsCompoundLiteral(const Stmt *S) {
    if (!S) return false;
    if (const auto *CLE = dyn_cast<CompoundLiteralExpr>(S))
      if (!CLE->isFileScope()) return true;
    for (const Stmt *Child : S->children())
      if (containsCompoundLiteral(Child)) return true;
    return false;
  }

  // `call(args)` with no side effects in callee and arguments and no nested reaching call.
  bool isCanonicalCall(const Expr *E) const {
    const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
    if (!Call || !PC.isReachingCall(Call)) return false;
    if (hasSideEffects(Call->getCallee()) || containsReachingCall(Call->getCallee())) return false;
    for (const Expr *Arg : Call->arguments())
      if (hasSideEffects(Arg) || containsReachingCall(Arg)) return false;
    return true;
  }

  bool isCanonicalStatement(const Expr *E) const {
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(E))
      if (Cast->getType()->isVoidType()) E = Cast->getSubExpr()->IgnoreParens();
    if (isCanonicalCall(E)) return true;
    if (const auto *Assign = dyn_cast<BinaryOperator>(E))
      if (Assign->getOpcode() == BO_Assign && !hasSideEffects(Assign->getLHS()) &&
          !containsReachingCall(Assign->getLHS()))
        return isCanonicalCall(Assign->getRHS());
    return false;
  }

  // ---- temporaries -------------------------------------------------------------------------

  std::string newTemp(QualType T, Lowered &L) {
    std::string Name = "__c3_t" + std::to_string(++TempCounter);
    QualType Storage = T.getUnqualifiedType();
    if (Storage->isArrayType()) Storage = PC.Ctx.getArrayDecayedType(Storage);
    L.Decls.push_back(declareText(PC.Ctx, Storage, Name) + ";");
    return Name;
  }

  // ---- lowering of expressions ---------------------------------------------------------------

  std::string print(const Stmt *S) const { return Splice.print(S); }

  // Returns text equivalent to E, evaluated after L.Pre has run.
  std::string lower(const Expr *E, Lowered &L) {
    if (!containsReachingCall(E)) return print(E);
    if (const auto *Paren = dyn_cast<ParenExpr>(E)) return "(" + lower(Paren->getSubExpr(), L) + ")";
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E)) return lower(Cast->getSubExpr(), L);
    if (isa<StmtExpr>(E)) {
      fail(E->getBeginLoc(), "a call that can reach a checkpoint inside a statement expression",
           "move the statements out of '({ ... })' into ordinary statements");
      return print(E);
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      std::string Text = lowerCallText(Call, L);
      if (!PC.isReachingCall(Call)) return Text;
      if (Call->getType()->isVoidType()) {
        L.Pre.push_back(Text + ";");
        return "((void)0)";
      }
      std::string Temp = newTemp(Call->getType(), L);
      L.Pre.push_back(storeText(PC.Ctx, Call->getType(), Temp, Text) + ";");
      return Temp;
    }
    if (const auto *Bin = dyn_cast<BinaryOperator>(E)) {
      BinaryOperatorKind Op = Bin->getOpcode();
      if ((Op == BO_LAnd || Op == BO_LOr) && containsReachingCall(Bin->getRHS())) {
        std::string Left = lower(Bin->getLHS(), L);
        std::string Temp = newTemp(PC.Ctx.IntTy, L);
        L.Pre.push_back(Temp + " = (" + Left + ") != 0;");
        Lowered Right;
        std::string RightText = lower(Bin->getRHS(), Right);
        L.Decls.insert(L.Decls.end(), Right.Decls.begin(), Right.Decls.end());
        L.Pre.push_back(std::string("if (") + (Op == BO_LAnd ? "" : "!") + Temp + ") { " +
                        join(Right.Pre) + Temp + " = (" + RightText + ") != 0; }");
        return Temp;
      }
      if (Op == BO_Comma) {
        std::string Left = lower(Bin->getLHS(), L);
        L.Pre.push_back("(void)(" + Left + ");");
        return lower(Bin->getRHS(), L);
      }
    }
    if (const auto *Cond = dyn_cast<ConditionalOperator>(E)) {
      if (containsReachingCall(Cond->getTrueExpr()) || containsReachingCall(Cond->getFalseExpr())) {
        std::string Test = lower(Cond->getCond(), L);
        Lowered Then, Else;
        std::string ThenText = lower(Cond->getTrueExpr(), Then);
        std::string ElseText = lower(Cond->getFalseExpr(), Else);
        L.Decls.insert(L.Decls.end(), Then.Decls.begin(), Then.Decls.end());
        L.Decls.insert(L.Decls.end(), Else.Decls.begin(), Else.Decls.end());
        if (Cond->getType()->isVoidType()) {
          L.Pre.push_back("if (" + Test + ") { " + join(Then.Pre) + "(void)(" + ThenText +
                          "); } else { " + join(Else.Pre) + "(void)(" + ElseText + "); }");
          return "((void)0)";
        }
        std::string Temp = newTemp(Cond->getType(), L);
        L.Pre.push_back("if (" + Test + ") { " + join(Then.Pre) +
                        storeText(PC.Ctx, Cond->getType(), Temp, ThenText) + "; } else { " +
                        join(Else.Pre) + storeText(PC.Ctx, Cond->getType(), Temp, ElseText) +
                        "; }");
        return Temp;
      }
    }
    if (const auto *Elvis = dyn_cast<BinaryConditionalOperator>(E)) {
      // `a ?: b`: a is evaluated once; b only when a is zero.
      std::string Left = lower(Elvis->getCommon(), L);
      std::string Temp = newTemp(Elvis->getType(), L);
      L.Pre.push_back(storeText(PC.Ctx, Elvis->getType(), Temp, Left) + ";");
      Lowered Right;
      std::string RightText = lower(Elvis->getFalseExpr(), Right);
      L.Decls.insert(L.Decls.end(), Right.Decls.begin(), Right.Decls.end());
      L.Pre.push_back("if (!" + Temp + ") { " + join(Right.Pre) +
                      storeText(PC.Ctx, Elvis->getType(), Temp, RightText) + "; }");
      return Temp;
    }
    // Any other expression: lower the operands left to right, keep the operator's text.
    return lowerOperands(E, L);
  }

  std::string lowerOperands(const Stmt *S, Lowered &L) {
    // The printer walks the written (syntactic) form of initializer lists: lower that one.
    if (const auto *ILE = dyn_cast<InitListExpr>(S))
      if (ILE->getSyntacticForm()) S = ILE->getSyntacticForm();
    Splicer Local(PC.Source);
    for (const Stmt *Child : S->children()) {
      const auto *ChildExpr = dyn_cast_or_null<Expr>(Child);
      if (!ChildExpr || !PC.Source.valid(ChildExpr) || !containsReachingCall(ChildExpr)) continue;
      Local.replaceExpr(ChildExpr, lower(ChildExpr, L));
    }
    return Local.print(S);
  }

  // The text of a call with its callee and arguments lowered; operands with side effects go to
  // temporaries so the call itself has none (and can be re-issued on restart).
  std::string lowerCallText(const CallExpr *Call, Lowered &L) {
    bool Reaching = PC.isReachingCall(Call);
    auto Operand = [&](const Expr *E) {
      bool Effects = hasSideEffects(E);
      std::string Text = lower(E, L);
      if (Reaching && Effects) {
        std::string Temp = newTemp(E->getType(), L);
        L.Pre.push_back(storeText(PC.Ctx, E->getType(), Temp, Text) + ";");
        return Temp;
      }
      return Text;
    };
    std::string Text = Operand(Call->getCallee()) + "(";
    for (unsigned I = 0; I < Call->getNumArgs(); ++I)
      Text += (I ? ", " : "") + Operand(Call->getArg(I));
    return Text + ")";
  }

  static std::string join(const std::vector<std::string> &Parts) {
    std::string Out;
    for (const std::string &Part : Parts) Out += Part + " ";
    return Out;
  }

  static std::string block(const Lowered &L) { return join(L.Decls) + join(L.Pre); }

  // The statement form of E: a bare reaching call or `lhs = call` stays a call statement.
  std::string lowerStatement(const Expr *E, Lowered &L) {
    const Expr *Root = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(Root))
      if (Cast->getType()->isVoidType()) Root = Cast->getSubExpr()->IgnoreParens();
    if (const auto *Call = dyn_cast<CallExpr>(Root))
      if (PC.isReachingCall(Call)) return lowerCallText(Call, L) + ";";
    if (const auto *Assign = dyn_cast<BinaryOperator>(Root))
      if (Assign->getOpcode() == BO_Assign && !hasSideEffects(Assign->getLHS()) &&
          !containsReachingCall(Assign->getLHS()))
        if (const auto *Call = dyn_cast<CallExpr>(Assign->getRHS()->IgnoreParenImpCasts()))
          if (PC.isReachingCall(Call))
            return print(Assign->getLHS()) + " = " + lowerCallText(Call, L) + ";";
    std::string Value = lower(E, L);
    if (Value == "((void)0)" || Value.rfind("__c3_t", 0) == 0) return std::string();
    return Value + ";";
  }

  // ---- statements --------------------------------------------------------------------------

  void fail(SourceLocation Loc, const std::string &Message, const std::string &Hint) {
    reportError(PC.diags(), Loc, Message, Hint);
    Failed = true;
  }

  std::string wrap(const std::string &Text, bool InBlock) {
    return InBlock ? Text : "{ " + Text + " }";
  }

  // Visits the statements of S, children first, so that enclosing rewrites print their
  // rewritten bodies.
  void visitChildren(const Stmt *S) {
    if (const auto *For = dyn_cast<ForStmt>(S))
      visit(For->getInit(), true);  // placed in a block of its own if it must move
    forEachSubstatement(S, [&](const Stmt *Child, bool InBlock) { visit(Child, InBlock); });
  }

  void visit(const Stmt *S, bool InBlock) {
    if (!S) return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (containsReachingCall(E) && !isCanonicalStatement(E)) {
        Lowered L;
        std::string Final = lowerStatement(E, L);
        Splice.replaceStmt(S, wrap(block(L) + Final, InBlock));
      }
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S)) return visitDecl(DS, InBlock);
    if (const auto *R = dyn_cast<ReturnStmt>(S)) {
      const Expr *Value = R->getRetValue();
      if (Value && containsReachingCall(Value)) {
        Lowered L;
        std::string Text = lower(Value, L);
        Splice.replaceStmt(S, "{ " + block(L) + "return " + Text + "; }");
      }
      return;
    }
    visitChildren(S);

    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (containsReachingCall(If->getCond())) replaceCondition(S, If->getCond());
    } else if (const auto *Sw = dyn_cast<SwitchStmt>(S)) {
      if (containsReachingCall(Sw->getCond())) replaceCondition(S, Sw->getCond());
    } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
      if (containsReachingCall(W->getCond())) {
        Lowered L;
        std::string Test = lower(W->getCond(), L);
        Splice.replaceStmt(S, "for (;;) { " + block(L) + "if (!(" + Test + ")) break; " +
                                  Splice.printFull(W->getBody()) + " }");
      }
    } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
      if (containsReachingCall(Do->getCond())) {
        // `continue` in the body must still evaluate the condition: test it at the top of every
        // iteration but the first, with the loop's increment clearing the first-iteration flag.
        Lowered L;
        std::string First = newTemp(PC.Ctx.IntTy, L);
        Lowered Test;
        std::string TestText = lower(Do->getCond(), Test);
        L.Decls.insert(L.Decls.end(), Test.Decls.begin(), Test.Decls.end());
        Splice.replaceStmt(S, "{ " + join(L.Decls) + First + " = 1; for (;; " + First +
                                  " = 0) { if (!" + First + ") { " + join(Test.Pre) + "if (!(" +
                                  TestText + ")) break; } " + Splice.printFull(Do->getBody()) +
                                  " } }");
      }
    } else if (const auto *For = dyn_cast<ForStmt>(S)) {
      visitFor(For);
    }
  }

  void replaceCondition(const Stmt *S, const Expr *Cond) {
    Lowered L;
    Splicer Local = Splice;
    Local.replaceExpr(Cond, lower(Cond, L));
    Splice.replaceStmt(S, "{ " + block(L) + Local.printFull(S) + " }");
  }

  void visitDecl(const DeclStmt *DS, bool InBlock) {
    const VarDecl *Reaching = nullptr;
    unsigned Count = 0;
    for (const Decl *D : DS->decls()) {
      ++Count;
      const auto *VD = dyn_cast<VarDecl>(D);
      if (VD && VD->hasInit() && containsReachingCall(VD->getInit())) Reaching = VD;
    }
    if (!Reaching) return;
    if (Count > 1) {
      // hoist-locals turns the declarators into one statement each, in order: plain calls are
      // call sites then.
      bool AllPlain = true;
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || !VD->hasLocalStorage()) AllPlain = false;  // e.g. a function declarator
        if (VD && VD->hasInit() && containsReachingCall(VD->getInit()) &&
            !(VD->hasLocalStorage() && isCanonicalCall(VD->getInit())))
          AllPlain = false;
      }
      if (AllPlain) return;
      // Otherwise one declaration and one lowered assignment per declarator, in order: each
      // initializer still runs after the declarators before it, in the scope it was written in.
      std::string Text;
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        QualType T = VD ? VD->getType() : QualType();
        if (!VD || !VD->hasLocalStorage() || T->isArrayType() || !isAssignable(PC.Ctx, T) ||
            (VD->hasInit() && isa<InitListExpr>(VD->getInit()->IgnoreImplicit()))) {
          const NamedDecl *Named = dyn_cast<NamedDecl>(D);
          std::string Name = Named ? Named->getNameAsString() : std::string("?");
          fail(D->getLocation(),
               "a call that can reach a checkpoint in a declaration of several variables, one of "
               "them ('" + Name + "') an array, a braced or a static variable",
               "declare '" + Name + "' in a declaration of its own");
          return;
        }
        Text += declareText(PC.Ctx, T, VD->getNameAsString()) + "; ";
        if (!VD->hasInit()) continue;
        Lowered L;
        std::string Value = lower(VD->getInit(), L);
        Text += block(L) + storeText(PC.Ctx, T, VD->getNameAsString(), Value) + "; ";
      }
      Splice.replaceStmt(DS, wrap(Text, InBlock));
      return;
    }
    if (Reaching->hasLocalStorage() && isCanonicalCall(Reaching->getInit())) return;
    Lowered L;
    Splicer Local = Splice;
    Local.replaceExpr(Reaching->getInit(), lower(Reaching->getInit(), L));
    Splice.replaceStmt(DS, wrap(block(L) + Local.printFull(DS), InBlock));
  }

  void visitFor(const ForStmt *For) {
    const Stmt *Init = For->getInit();
    bool InitReaches = Init && containsReachingCall(Init);
    bool CondReaches = For->getCond() && containsReachingCall(For->getCond());
    bool IncReaches = For->getInc() && containsReachingCall(For->getInc());
    if (!InitReaches && !CondReaches && !IncReaches) return;

    // A reaching initializer runs as a statement before the loop, in a block that keeps the
    // scope of anything it declares.
    std::string Prefix, InitText = ";";
    if (Init) {
      std::string Text = Splice.printFull(Init);
      if (InitReaches) Prefix = Text;
      else InitText = Text;
    }
    Lowered L;
    std::string CondBlock, Cond;
    if (For->getCond()) {
      if (CondReaches) {
        Lowered Test;
        std::string TestText = lower(For->getCond(), Test);
        L.Decls.insert(L.Decls.end(), Test.Decls.begin(), Test.Decls.end());
        CondBlock = join(Test.Pre) + "if (!(" + TestText + ")) break; ";
      } else {
        Cond = print(For->getCond());
      }
    }
    std::string Inc = For->getInc() ? print(For->getInc()) : std::string();
    std::string Body = Splice.printFull(For->getBody());
    std::string Text;
    if (IncReaches) {
      // Same first-iteration flag as for do-while: `continue` still runs the increment.
      std::string First = newTemp(PC.Ctx.IntTy, L);
      Lowered Step;
      std::string StepText = lowerStatement(For->getInc(), Step);
      L.Decls.insert(L.Decls.end(), Step.Decls.begin(), Step.Decls.end());
      Text = First + " = 1; for (" + InitText + " " + Cond + "; " + First + " = 0) { if (!" +
             First + ") { " + join(Step.Pre) + StepText + " } " + CondBlock + Body + " }";
      if (!Cond.empty()) {
        // The condition must run after the increment, so it moves into the body as well.
        Lowered Test;
        std::string TestText = lower(For->getCond(), Test);
        Text = First + " = 1; for (" + InitText + " ; " + First + " = 0) { if (!" + First +
               ") { " + join(Step.Pre) + StepText + " } " + join(Test.Pre) + "if (!(" + TestText +
               ")) break; " + Body + " }";
      }
    } else {
      Text = "for (" + InitText + " " + Cond + "; " + Inc + ") { " + CondBlock + Body + " }";
    }
    Splice.replaceStmt(For, "{ " + join(L.Decls) + Prefix + " " + Text + " }");
  }

  PassContext &PC;
  const FunctionDecl *Function;
  Splicer Splice;
  unsigned TempCounter = 0;
  bool Failed = false;
};

class SplitCallsPass : public Pass {
 public:
  const char *name() const override { return "split-calls"; }

  void run(PassContext &PC) override {
    PC.forEachInstrumentedFunction([&](FunctionDecl *FD) {
      FunctionSplitter Splitter(PC, FD);
      std::string Body = Splitter.run();
      if (Body.empty()) return;
      const Stmt *Old = FD->getBody();
      PC.Rewrite.ReplaceText(SourceRange(Old->getBeginLoc(), Old->getEndLoc()), Body);
    });
  }
};

}  // namespace

std::unique_ptr<Pass> createSplitCallsPass() { return std::make_unique<SplitCallsPass>(); }

}  // namespace c3pre
