// Call sites of an instrumented function, as split-calls leaves them: statements `call(args);`,
// `(void)call(args);`, `lhs = call(args);` (or the copying form of the store), and, before
// hoist-locals runs, declarators `T x = call(args);`. A restart re-issues exactly these calls.
#pragma once
#include "Pass.h"

namespace c3pre {

// The reaching call of a site statement, or null.
const clang::CallExpr *siteCall(const PassContext &PC, const clang::Stmt *S);

// The reaching call that initializes VD (a declarator site), or null.
const clang::CallExpr *siteInitializer(const PassContext &PC, const clang::VarDecl *VD);

}  // namespace c3pre
