// What c3 cannot re-enter in a function that can reach a checkpoint: setjmp/longjmp (they bypass
// the frame chain), computed goto, variadic functions, thread-local variables, variables or
// compound literals whose type is declared inside the function (the frame record is declared
// before such types), and the forms of variable-length arrays move-variable-arrays does not take
// (several declarators in one declaration, variably modified typedefs, static ones).
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
