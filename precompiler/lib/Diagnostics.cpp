#include "Diagnostics.h"

namespace c3pre {

void reportError(clang::DiagnosticsEngine &Diags, clang::SourceLocation Loc, llvm::StringRef Message,
                 llvm::StringRef Hint) {
  unsigned ErrorID = Diags.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0");
  Diags.Report(Loc, ErrorID) << Message;
  if (!Hint.empty()) {
    unsigned NoteID = Diags.getCustomDiagID(clang::DiagnosticsEngine::Note, "hint: %0");
    Diags.Report(Loc, NoteID) << Hint;
  }
}

}  // namespace c3pre
