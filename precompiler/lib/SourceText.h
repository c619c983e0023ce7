// Source text of AST nodes, and a printer that re-emits a node's original text with some of its
// descendants replaced. Inputs are preprocessed, so every node is spelled in the main buffer
// (no macro expansions), which makes character offsets exact.
#pragma once
#include <map>
#include <string>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

namespace c3pre {

class SourceText {
 public:
  explicit SourceText(clang::ASTContext &Ctx);

  unsigned begin(const clang::Stmt *S) const;
  unsigned offset(clang::SourceLocation Loc) const;
  // Offset just past the last token of S.
  unsigned end(const clang::Stmt *S) const;
  // Like end(), but includes the ';' that terminates S when S is a statement that has one
  // (expression statements, return, break, do-while, ...).
  unsigned fullEnd(const clang::Stmt *S) const;
  std::string text(unsigned Begin, unsigned End) const;
  std::string text(const clang::Stmt *S) const { return text(begin(S), end(S)); }
  // Offset just past the first ';' at or after Offset.
  unsigned afterSemicolon(unsigned Offset) const;
  bool valid(const clang::Stmt *S) const;
  clang::SourceLocation location(unsigned Offset) const;
  llvm::StringRef buffer() const { return Buffer; }
  clang::ASTContext &context() const { return Ctx; }
  // "file.c:12": where Loc is in the user's source (after #line markers), as messages name it.
  std::string where(clang::SourceLocation Loc) const;

 private:
  clang::ASTContext &Ctx;
  clang::FileID MainFile;
  llvm::StringRef Buffer;
};

// Prints a node's source text with replacements. A replaced statement's text stands for its
// whole extent up to fullEnd() (its ';' included); a replaced expression stands for end().
class Splicer {
 public:
  explicit Splicer(const SourceText &Source) : Source(Source) {}

  void replaceExpr(const clang::Stmt *S, std::string Text) { Exprs[S] = std::move(Text); }
  void replaceStmt(const clang::Stmt *S, std::string Text) { Stmts[S] = std::move(Text); }
  bool hasReplacement(const clang::Stmt *S) const { return Exprs.count(S) || Stmts.count(S); }
  bool empty() const { return Exprs.empty() && Stmts.empty(); }

  // Text of S (up to end(S)) with replacements applied inside.
  std::string print(const clang::Stmt *S) const;
  // Text of S up to fullEnd(S): what replaces a whole statement.
  std::string printFull(const clang::Stmt *S) const;

 private:
  // Appends the text of S, returns the offset where the caller's cursor continues.
  unsigned emit(const clang::Stmt *S, std::string &Out) const;

  const SourceText &Source;
  std::map<const clang::Stmt *, std::string> Exprs;
  std::map<const clang::Stmt *, std::string> Stmts;
};

}  // namespace c3pre
