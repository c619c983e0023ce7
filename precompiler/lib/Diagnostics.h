// Clang-style diagnostics (file:line:col, caret, hint) for constructs c3 cannot transform.
#pragma once
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"

namespace c3pre {

// An error at `Loc` followed by a note at the same place telling what to write instead.
void reportError(clang::DiagnosticsEngine &Diags, clang::SourceLocation Loc, llvm::StringRef Message,
                 llvm::StringRef Hint = {});

}  // namespace c3pre
