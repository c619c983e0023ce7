// What c3 cannot re-enter in a function that can reach a checkpoint: variable-length arrays and
// alloca (frames must have a fixed layout), setjmp/longjmp (they bypass the frame chain),
// computed goto, variadic functions, thread-local variables, and variables or compound literals
// whose type is declared inside the function (the frame record is declared before such types).
#pragma once
#include <functional>
#include <string>

#include "clang/AST/Decl.h"

namespace c3pre {

// (where, message, hint)
using UnsupportedReport =
    std::function<void(clang::SourceLocation, const std::string &, const std::string &)>;

void findUnsupported(const clang::FunctionDecl *FD, const UnsupportedReport &Report);
bool hasUnsupported(const clang::FunctionDecl *FD);

}  // namespace c3pre
