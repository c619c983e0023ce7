// Describes every writable global and function-static variable of the file to the runtime, as
// `struct __c3_global` records in ELF section "c3_globals": the linker gathers them from all files
// into one array, so registration costs nothing at start-up and statics need no constructor.
#include <set>

#include "Diagnostics.h"
#include "Pass.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

constexpr const char *kDescriptorAttributes =
    "__attribute__((section(\"c3_globals\"), used, aligned(8)))";

// The type the object finally has: `int a[]; int a[4];` is four ints, and an array that stays
// incomplete to the end of the file has one element (C11 6.9.2p2).
QualType finalType(const VarDecl *VD, ASTContext &Ctx) {
  for (const VarDecl *Redecl : VD->redecls())
    if (!Redecl->getType()->isIncompleteType()) return Redecl->getType();
  if (const auto *IA = Ctx.getAsIncompleteArrayType(VD->getType()))
    return Ctx.getConstantArrayType(IA->getElementType(), llvm::APInt(64, 1), nullptr,
                                    ArrayType::Normal, 0);
  return VD->getType();
}

bool isSavable(const VarDecl *VD, ASTContext &Ctx) {
  QualType T = finalType(VD, Ctx);
  if (T->isIncompleteType() || T->isVariablyModifiedType()) return false;
  if (Ctx.getBaseElementType(T).isConstQualified()) return false;  // never changes
  return true;
}

std::string descriptor(const VarDecl *VD, ASTContext &Ctx, const std::string &Label) {
  std::string Name = VD->getNameAsString();
  uint64_t Size = uint64_t(Ctx.getTypeSizeInChars(finalType(VD, Ctx)).getQuantity());
  return "{(void *)&" + Name + ", " + std::to_string(Size) + "ul, \"" + Label + "\"}";
}

class StaticLocalFinder : public RecursiveASTVisitor<StaticLocalFinder> {
 public:
  StaticLocalFinder(PassContext &PC, const FunctionDecl *FD, unsigned &Counter)
      : PC(PC), Function(FD), Counter(Counter) {}

  bool VisitDeclStmt(DeclStmt *DS) {
    std::string Text;
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || !VD->isStaticLocal() || !isSavable(VD, PC.Ctx)) continue;
      if (VD->getTSCSpec() != TSCS_unspecified) continue;  // reported by check-unsupported
      Text += " static const struct __c3_global __c3_static_" + std::to_string(++Counter) + " " +
              kDescriptorAttributes + " = " +
              descriptor(VD, PC.Ctx, Function->getNameAsString() + "." + VD->getNameAsString()) +
              ";";
    }
    if (!Text.empty()) PC.Rewrite.InsertTextAfter(PC.Source.location(PC.Source.end(DS)), Text);
    return true;
  }

 private:
  PassContext &PC;
  const FunctionDecl *Function;
  unsigned &Counter;
};

class RegisterGlobalsPass : public Pass {
 public:
  const char *name() const override { return "register-globals"; }

  void run(PassContext &PC) override {
    const SourceManager &SM = PC.Ctx.getSourceManager();
    std::vector<std::string> Entries;
    std::set<const VarDecl *> Seen;
    unsigned Counter = 0;
    for (Decl *D : PC.Ctx.getTranslationUnitDecl()->decls()) {
      if (SM.isInSystemHeader(D->getLocation())) continue;
      if (auto *FD = dyn_cast<FunctionDecl>(D)) {
        if (FD->doesThisDeclarationHaveABody()) {
          StaticLocalFinder Finder(PC, FD, Counter);
          Finder.TraverseDecl(FD);
        }
        continue;
      }
      auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || VD->isThisDeclarationADefinition() == VarDecl::DeclarationOnly) continue;
      const VarDecl *Canonical = VD->getCanonicalDecl();
      if (!Seen.insert(Canonical).second) continue;
      if (VD->getTSCSpec() != TSCS_unspecified) {
        reportError(PC.diags(), VD->getLocation(),
                    "thread-local variable '" + VD->getNameAsString() + "' cannot be checkpointed",
                    "c3 programs are single-threaded (or MPI_THREAD_FUNNELED): drop _Thread_local");
        continue;
      }
      if (!isSavable(VD, PC.Ctx)) continue;
      Entries.push_back(descriptor(VD, PC.Ctx, VD->getNameAsString()));
    }
    if (Entries.empty()) return;
    std::string Table = "\nstatic const struct __c3_global __c3_file_globals[] ";
    Table += kDescriptorAttributes;
    Table += " = {";
    for (size_t I = 0; I < Entries.size(); ++I) Table += (I ? ", " : "") + Entries[I];
    Table += "};\n";
    SourceLocation EndOfFile = SM.getLocForEndOfFile(SM.getMainFileID());
    PC.Rewrite.InsertTextAfter(EndOfFile, Table);
  }
};

}  // namespace

std::unique_ptr<Pass> createRegisterGlobalsPass() { return std::make_unique<RegisterGlobalsPass>(); }

}  // namespace c3pre
