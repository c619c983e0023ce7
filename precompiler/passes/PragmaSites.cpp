// `#pragma ccc_checkpoint [force]` -> `__c3_checkpoint_site(force, "file:line");`
//
// The pragma must stand where a statement may stand: in a block, or right after a case or
// label. As the unbraced body of if/while/for it would silently change what the body is, so that
// and every other position (inside an expression, outside functions) is an error.
#include "Diagnostics.h"
#include "Pass.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;

namespace c3pre {
namespace {

class CheckpointPragmaHandler : public PragmaHandler {
 public:
  explicit CheckpointPragmaHandler(std::vector<PragmaUse> &Uses)
      : PragmaHandler("ccc_checkpoint"), Uses(Uses) {}

  void HandlePragma(Preprocessor &PP, PragmaIntroducer Introducer, Token &FirstToken) override {
    PragmaUse Use;
    Use.HashLoc = Introducer.Loc;
    Token Tok;
    PP.Lex(Tok);
    if (Tok.is(tok::identifier) && Tok.getIdentifierInfo()->getName() == "force") {
      Use.Force = true;
      PP.Lex(Tok);
    }
    if (Tok.isNot(tok::eod)) {
      std::string Spelling = PP.getSpelling(Tok);
      reportError(PP.getDiagnostics(), Tok.getLocation(),
                  "unknown argument '" + Spelling + "' to '#pragma ccc_checkpoint'",
                  "write '#pragma ccc_checkpoint' (checkpoint when due) or "
                  "'#pragma ccc_checkpoint force' (always checkpoint)");
      Use.Valid = false;
      while (Tok.isNot(tok::eod)) PP.Lex(Tok);
    }
    (void)FirstToken;
    Uses.push_back(Use);
  }

 private:
  std::vector<PragmaUse> &Uses;
};

// Finds, for one offset, the innermost statement of a function body that contains it.
struct Placement {
  const FunctionDecl *Function = nullptr;
  const Stmt *Innermost = nullptr;
};

class PlacementFinder : public RecursiveASTVisitor<PlacementFinder> {
 public:
  PlacementFinder(const SourceText &Source, unsigned Offset) : Source(Source), Offset(Offset) {}

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || !Source.valid(FD->getBody())) return true;
    const Stmt *Body = FD->getBody();
    if (Offset > Source.begin(Body) && Offset < Source.end(Body)) {
      Result.Function = FD;
      descend(Body);
    }
    return true;
  }

  Placement Result;

 private:
  void descend(const Stmt *S) {
    Result.Innermost = S;
    for (const Stmt *Child : S->children()) {
      if (!Source.valid(Child)) continue;
      // Expressions end at their last token: the ';' after a for-increment is far away.
      unsigned End = isa<Expr>(Child) ? Source.end(Child) : Source.fullEnd(Child);
      if (Offset >= Source.begin(Child) && Offset < End) {
        descend(Child);
        return;
      }
    }
  }

  const SourceText &Source;
  unsigned Offset;
};

class PragmaSitesPass : public Pass {
 public:
  explicit PragmaSitesPass(const std::vector<PragmaUse> &Uses) : Uses(Uses) {}
  const char *name() const override { return "pragma-sites"; }

  void run(PassContext &PC) override {
    const SourceManager &SM = PC.Ctx.getSourceManager();
    for (const PragmaUse &Use : Uses) {
      if (!Use.Valid || SM.getFileID(Use.HashLoc) != SM.getMainFileID()) continue;
      unsigned Offset = SM.getFileOffset(Use.HashLoc);
      PlacementFinder Finder(PC.Source, Offset);
      Finder.TraverseDecl(PC.Ctx.getTranslationUnitDecl());
      const Placement &P = Finder.Result;
      if (!P.Function) {
        reportError(PC.diags(), Use.HashLoc, "'#pragma ccc_checkpoint' outside a function body",
                    "checkpoints are taken where the program runs: move the pragma into a function");
        continue;
      }
      if (!allowedIn(P.Innermost, Offset, PC.Source)) {
        reportError(PC.diags(), Use.HashLoc,
                    std::string("'#pragma ccc_checkpoint' cannot stand here (inside ") +
                        P.Innermost->getStmtClassName() + ")",
                    "put the pragma in a block of its own, e.g. 'if (x) { #pragma ccc_checkpoint }' "
                    "on separate lines");
        continue;
      }
      std::string Where = PC.Source.where(Use.HashLoc);
      size_t LineEnd = PC.Source.buffer().find('\n', Offset);
      if (LineEnd == StringRef::npos) LineEnd = PC.Source.buffer().size();
      std::string Call = std::string("__c3_checkpoint_site(") + (Use.Force ? "1" : "0") + ", \"" +
                         Where + "\");";
      PC.Rewrite.ReplaceText(Use.HashLoc, unsigned(LineEnd - Offset), Call);
    }
  }

 private:
  static bool allowedIn(const Stmt *S, unsigned Offset, const SourceText &Source) {
    if (isa<CompoundStmt>(S)) return true;
    const Stmt *Sub = nullptr;
    if (const auto *C = dyn_cast<SwitchCase>(S)) Sub = C->getSubStmt();
    if (const auto *L = dyn_cast<LabelStmt>(S)) Sub = L->getSubStmt();
    return Sub && Source.valid(Sub) && Offset < Source.begin(Sub);
  }

  const std::vector<PragmaUse> &Uses;
};

}  // namespace

PragmaHandler *createCheckpointPragmaHandler(std::vector<PragmaUse> &Uses) {
  return new CheckpointPragmaHandler(Uses);
}

std::unique_ptr<Pass> createPragmaSitesPass(const std::vector<PragmaUse> &Uses) {
  return std::make_unique<PragmaSitesPass>(Uses);
}

}  // namespace c3pre
