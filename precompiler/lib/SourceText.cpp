#include "SourceText.h"

#include <algorithm>
#include <vector>

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace c3pre {

SourceText::SourceText(ASTContext &Ctx) : Ctx(Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  MainFile = SM.getMainFileID();
  Buffer = SM.getBufferData(MainFile);
}

bool SourceText::valid(const Stmt *S) const {
  if (!S) return false;
  SourceLocation B = S->getBeginLoc(), E = S->getEndLoc();
  const SourceManager &SM = Ctx.getSourceManager();
  return B.isValid() && E.isValid() && B.isFileID() && E.isFileID() && SM.getFileID(B) == MainFile;
}

unsigned SourceText::begin(const Stmt *S) const {
  return Ctx.getSourceManager().getFileOffset(S->getBeginLoc());
}

unsigned SourceText::offset(SourceLocation Loc) const {
  return Ctx.getSourceManager().getFileOffset(Loc);
}

std::string SourceText::where(SourceLocation Loc) const {
  PresumedLoc Presumed = Ctx.getSourceManager().getPresumedLoc(Loc);
  if (!Presumed.isValid()) return "?";
  return std::string(llvm::sys::path::filename(Presumed.getFilename())) + ":" +
         std::to_string(Presumed.getLine());
}

unsigned SourceText::end(const Stmt *S) const {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation After = Lexer::getLocForEndOfToken(S->getEndLoc(), 0, SM, Ctx.getLangOpts());
  return SM.getFileOffset(After);
}

unsigned SourceText::afterSemicolon(unsigned Offset) const {
  size_t Pos = Buffer.find(';', Offset);
  return Pos == StringRef::npos ? Offset : unsigned(Pos + 1);
}

unsigned SourceText::fullEnd(const Stmt *S) const {
  if (isa<CompoundStmt>(S) || isa<DeclStmt>(S) || isa<NullStmt>(S)) return end(S);
  if (const auto *If = dyn_cast<IfStmt>(S))
    return fullEnd(If->getElse() ? If->getElse() : If->getThen());
  if (const auto *W = dyn_cast<WhileStmt>(S)) return fullEnd(W->getBody());
  if (const auto *F = dyn_cast<ForStmt>(S)) return fullEnd(F->getBody());
  if (const auto *Sw = dyn_cast<SwitchStmt>(S)) return fullEnd(Sw->getBody());
  if (const auto *C = dyn_cast<SwitchCase>(S)) return fullEnd(C->getSubStmt());
  if (const auto *L = dyn_cast<LabelStmt>(S)) return fullEnd(L->getSubStmt());
  // Expression statements, return, break, continue, goto, do-while, asm: end with ';'.
  return afterSemicolon(end(S));
}

std::string SourceText::text(unsigned Begin, unsigned End) const {
  if (End <= Begin) return std::string();
  return Buffer.substr(Begin, End - Begin).str();
}

SourceLocation SourceText::location(unsigned Offset) const {
  return Ctx.getSourceManager().getLocForStartOfFile(MainFile).getLocWithOffset(Offset);
}

// Children of S in source order, with the syntactic form of initializer lists (the semantic
// form contains implicit nodes without locations).
static std::vector<const Stmt *> sourceChildren(const Stmt *S) {
  std::vector<const Stmt *> Kids;
  if (const auto *ILE = dyn_cast<InitListExpr>(S))
    if (ILE->isSemanticForm() && ILE->getSyntacticForm()) S = ILE->getSyntacticForm();
  for (const Stmt *Child : S->children())
    if (Child) Kids.push_back(Child);
  return Kids;
}

unsigned Splicer::emit(const Stmt *S, std::string &Out) const {
  auto StmtIt = Stmts.find(S);
  if (StmtIt != Stmts.end()) {
    Out += StmtIt->second;
    return Source.fullEnd(S);
  }
  auto ExprIt = Exprs.find(S);
  if (ExprIt != Exprs.end()) {
    Out += ExprIt->second;
    return Source.end(S);
  }
  unsigned Begin = Source.begin(S), End = Source.end(S);
  std::vector<const Stmt *> Kids;
  for (const Stmt *Child : sourceChildren(S)) {
    if (!Source.valid(Child)) continue;
    unsigned CB = Source.begin(Child), CE = Source.end(Child);
    if (CB < Begin || CE > End) continue;
    Kids.push_back(Child);
  }
  std::stable_sort(Kids.begin(), Kids.end(), [&](const Stmt *A, const Stmt *B) {
    return Source.begin(A) < Source.begin(B);
  });
  unsigned Cursor = Begin;
  for (const Stmt *Child : Kids) {
    unsigned CB = Source.begin(Child);
    if (CB < Cursor) continue;  // shares text with a sibling already printed (implicit nodes)
    Out += Source.text(Cursor, CB);
    Cursor = emit(Child, Out);
  }
  if (Cursor < End) Out += Source.text(Cursor, End);
  return std::max(Cursor, End);
}

std::string Splicer::print(const Stmt *S) const {
  std::string Out;
  emit(S, Out);
  return Out;
}

std::string Splicer::printFull(const Stmt *S) const {
  std::string Out;
  unsigned Cursor = emit(S, Out);
  unsigned Full = Source.fullEnd(S);
  if (Cursor < Full) Out += Source.text(Cursor, Full);
  return Out;
}

}  // namespace c3pre
