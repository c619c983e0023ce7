// Rejects, in functions that are instrumented, what c3 cannot re-enter (lib/Unsupported.h). A
// function that only might reach a checkpoint (through a call into another file or through a
// pointer) and contains such a construct is not instrumented at all (lib/Reachability.cpp):
// a checkpoint beneath it is refused at run time instead.
#include "Diagnostics.h"
#include "Pass.h"
#include "Unsupported.h"

using namespace clang;

namespace c3pre {
namespace {

class CheckUnsupportedPass : public Pass {
 public:
  const char *name() const override { return "check-unsupported"; }

  void run(PassContext &PC) override {
    PC.forEachInstrumentedFunction([&](FunctionDecl *FD) {
      findUnsupported(FD, [&](SourceLocation Loc, const std::string &Message,
                              const std::string &Hint) {
        reportError(PC.diags(), Loc, Message, Hint);
      });
    });
  }
};

}  // namespace

std::unique_ptr<Pass> createCheckUnsupportedPass() { return std::make_unique<CheckUnsupportedPass>(); }

}  // namespace c3pre
