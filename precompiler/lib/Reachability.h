// Which functions can reach a checkpoint pragma, over one file or a whole program.
//
// A function reaches a checkpoint if it contains a pragma site, calls a function that reaches one,
// calls an unknown function (declared but defined in no file we were given, and not a system,
// MPI or c3 function), or calls through a function pointer while some function whose address is
// taken may reach one. Per-file runs are therefore conservative; whole-program runs are exact up
// to function pointers. A function that only might reach one and contains a construct c3 cannot
// re-enter (lib/Unsupported.h, or a call that may reach inside a statement expression) is left
// uninstrumented instead of rejected.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace c3pre {

// The call graph facts of one translation unit.
struct FileSummary {
  struct Function {
    std::string Key;
    bool HasSite = false;
    bool CallsIndirectly = false;
    bool Unsupported = false;  // holds something c3 cannot re-enter (lib/Unsupported.h)
    std::set<std::string> Callees;  // keys
    // Called inside a statement expression ("*": through a pointer): c3 cannot re-enter the
    // function if one of these reaches a checkpoint (passes/SplitCalls.cpp).
    std::set<std::string> WrappedCallees;
  };
  std::vector<Function> Functions;       // defined in this file
  std::set<std::string> AddressTaken;    // keys of functions whose address is taken
  std::set<std::string> ExternalCallees; // keys called but not defined here (non-system)
};

// Identity of a function across files: the name for external linkage, file index + name for
// internal linkage.
std::string functionKey(const clang::FunctionDecl *FD, unsigned FileIndex);

// System, MPI and c3 functions never reach a checkpoint (the c3 site itself excepted).
bool isOpaqueLibraryFunction(const clang::FunctionDecl *FD);
bool isCheckpointSite(const clang::FunctionDecl *FD);

FileSummary summarize(clang::ASTContext &Ctx, unsigned FileIndex);

// A summary as text (one fact per line), for the link unit of a file compiled alone. The keys of
// the file's own static functions are written without its index and read back with FileIndex.
std::string serializeSummary(const FileSummary &Summary, unsigned FileIndex);
bool parseSummary(llvm::StringRef Text, unsigned FileIndex, FileSummary &Out);

class ReachInfo {
 public:
  ReachInfo() = default;
  // Without WholeProgram, other files may pass any function pointer in: indirect calls reach.
  ReachInfo(const std::vector<FileSummary> &Files, bool WholeProgram);

  bool reaches(const std::string &Key) const;
  // Reaches and is not left uninstrumented (the function of that key, if it has a body).
  bool instruments(const std::string &Key) const;
  bool isInstrumented(const clang::FunctionDecl *FD, unsigned FileIndex) const;
  // Is this call possibly reaching a checkpoint (and so a call site to instrument)?
  bool isReachingCall(const clang::CallExpr *Call, unsigned FileIndex) const;
  bool indirectCallsReach() const { return IndirectReaches; }

 private:
  bool wrapsReachingCall(const FileSummary::Function &F) const;

  std::set<std::string> Defined;
  std::set<std::string> Reaching;
  // Reaching only through calls into unknown code or through pointers, and holding something c3
  // cannot re-enter: left uninstrumented (a checkpoint beneath is refused at run time).
  std::set<std::string> Excluded;
  bool IndirectReaches = false;
};

}  // namespace c3pre
