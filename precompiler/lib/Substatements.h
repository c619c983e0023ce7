// The statements nested directly in a statement as statements (not as conditions): block items,
// if branches, loop and switch bodies, case and label sub-statements. A for-loop's init is not
// included: passes treat it on their own.
#pragma once
#include "clang/AST/Stmt.h"

namespace c3pre {

// Calls Visit(child, InBlock) for each; InBlock says the child is an item of a { } block, where
// statements may be inserted before it without braces.
template <typename Fn>
void forEachSubstatement(const clang::Stmt *S, Fn &&Visit) {
  using namespace clang;
  if (const auto *C = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : C->body()) Visit(Child, true);
  } else if (const auto *If = dyn_cast<IfStmt>(S)) {
    Visit(If->getThen(), false);
    if (If->getElse()) Visit(If->getElse(), false);
  } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
    Visit(W->getBody(), false);
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    Visit(Do->getBody(), false);
  } else if (const auto *For = dyn_cast<ForStmt>(S)) {
    Visit(For->getBody(), false);
  } else if (const auto *Sw = dyn_cast<SwitchStmt>(S)) {
    Visit(Sw->getBody(), false);
  } else if (const auto *Case = dyn_cast<SwitchCase>(S)) {
    Visit(Case->getSubStmt(), false);
  } else if (const auto *Label = dyn_cast<LabelStmt>(S)) {
    Visit(Label->getSubStmt(), false);
  }
}

}  // namespace c3pre
