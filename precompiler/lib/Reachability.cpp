#include "Reachability.h"

#include <map>

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "Unsupported.h"

using namespace clang;

namespace c3pre {

std::string functionKey(const FunctionDecl *FD, unsigned FileIndex) {
  std::string Name = FD->getNameAsString();
  if (FD->isExternallyVisible()) return Name;
  return std::to_string(FileIndex) + ":" + Name;
}

bool isCheckpointSite(const FunctionDecl *FD) {
  return FD->getIdentifier() && FD->getName() == "__c3_checkpoint_site";
}

bool isOpaqueLibraryFunction(const FunctionDecl *FD) {
  if (FD->getBuiltinID() != 0) return true;
  if (const IdentifierInfo *II = FD->getIdentifier()) {
    StringRef Name = II->getName();
    if (Name.startswith("MPI_") || Name.startswith("PMPI_") || Name.startswith("__c3_")) return true;
  }
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  for (const FunctionDecl *Redecl : FD->redecls())
    if (SM.isInSystemHeader(Redecl->getLocation())) return true;
  return false;
}

namespace {

class SummaryVisitor : public RecursiveASTVisitor<SummaryVisitor> {
 public:
  SummaryVisitor(ASTContext &Ctx, unsigned FileIndex, FileSummary &Out)
      : Ctx(Ctx), FileIndex(FileIndex), Out(Out) {}

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() ||
        Ctx.getSourceManager().isInSystemHeader(FD->getLocation()))
      return RecursiveASTVisitor::TraverseFunctionDecl(FD);
    FileSummary::Function F;
    F.Key = functionKey(FD, FileIndex);
    F.Unsupported = hasUnsupported(FD);
    FileSummary::Function *Saved = Current;
    Current = &F;
    bool Result = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    Current = Saved;
    Out.Functions.push_back(std::move(F));
    return Result;
  }

  // Without a queue: its calls are visited before this returns, not queued for later.
  bool TraverseStmtExpr(StmtExpr *E) {
    ++InStmtExpr;
    bool Result = RecursiveASTVisitor::TraverseStmtExpr(E);
    --InStmtExpr;
    return Result;
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (!Current) return true;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee) {
      Current->CallsIndirectly = true;
      if (InStmtExpr) Current->WrappedCallees.insert("*");
      return true;
    }
    if (isCheckpointSite(Callee)) {
      Current->HasSite = true;
      return true;
    }
    if (isOpaqueLibraryFunction(Callee)) return true;
    std::string Key = functionKey(Callee, FileIndex);
    Current->Callees.insert(Key);
    if (InStmtExpr) Current->WrappedCallees.insert(Key);
    if (!Callee->hasBody()) Out.ExternalCallees.insert(Key);
    return true;
  }

  // A function named outside a call's callee position has its address taken.
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl()))
      if (!isOpaqueLibraryFunction(FD)) Named[Ref] = FD;
    return true;
  }
  bool VisitCallExprCallee(CallExpr *Call) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      Named.erase(Ref);
    return true;
  }

  void finish() {
    for (auto &Entry : Named) Out.AddressTaken.insert(functionKey(Entry.second, FileIndex));
  }

  std::map<const DeclRefExpr *, const FunctionDecl *> Named;

 private:
  ASTContext &Ctx;
  unsigned FileIndex;
  FileSummary &Out;
  FileSummary::Function *Current = nullptr;
  unsigned InStmtExpr = 0;  // statement expressions around the node visited
};

class CalleeEraser : public RecursiveASTVisitor<CalleeEraser> {
 public:
  explicit CalleeEraser(SummaryVisitor &V) : V(V) {}
  bool VisitCallExpr(CallExpr *Call) { return V.VisitCallExprCallee(Call); }

 private:
  SummaryVisitor &V;
};

}  // namespace

FileSummary summarize(ASTContext &Ctx, unsigned FileIndex) {
  FileSummary Out;
  SummaryVisitor V(Ctx, FileIndex, Out);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  CalleeEraser E(V);
  E.TraverseDecl(Ctx.getTranslationUnitDecl());
  V.finish();
  return Out;
}

namespace {
// "7:name" (a static function of file 7) <-> "@:name" in the text.
std::string portableKey(const std::string &Key, unsigned FileIndex) {
  std::string Own = std::to_string(FileIndex) + ":";
  return Key.compare(0, Own.size(), Own) == 0 ? "@:" + Key.substr(Own.size()) : Key;
}
std::string localKey(llvm::StringRef Key, unsigned FileIndex) {
  if (Key.startswith("@:")) return std::to_string(FileIndex) + ":" + Key.drop_front(2).str();
  return Key.str();
}
}  // namespace

std::string serializeSummary(const FileSummary &Summary, unsigned FileIndex) {
  std::string Out;
  for (const auto &F : Summary.Functions) {
    Out += "function " + portableKey(F.Key, FileIndex) + " " + (F.HasSite ? "1" : "0") +
           (F.CallsIndirectly ? "1" : "0") + (F.Unsupported ? "1" : "0") + "\n";
    for (const std::string &Callee : F.Callees) Out += "calls " + portableKey(Callee, FileIndex) + "\n";
    for (const std::string &Callee : F.WrappedCallees)
      Out += "wraps " + portableKey(Callee, FileIndex) + "\n";
  }
  for (const std::string &Key : Summary.AddressTaken) Out += "address-taken " + portableKey(Key, FileIndex) + "\n";
  for (const std::string &Key : Summary.ExternalCallees) Out += "external " + portableKey(Key, FileIndex) + "\n";
  return Out;
}

bool parseSummary(llvm::StringRef Text, unsigned FileIndex, FileSummary &Out) {
  Out = FileSummary();
  while (!Text.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Text) = Text.split('\n');
    if (Line.empty()) continue;
    llvm::StringRef Kind, Rest;
    std::tie(Kind, Rest) = Line.split(' ');
    if (Kind == "function") {
      llvm::StringRef Key, Flags;
      std::tie(Key, Flags) = Rest.split(' ');
      if (Key.empty() || Flags.size() != 3 || Flags.find_first_not_of("01") != llvm::StringRef::npos)
        return false;
      FileSummary::Function F;
      F.Key = localKey(Key, FileIndex);
      F.HasSite = Flags[0] == '1';
      F.CallsIndirectly = Flags[1] == '1';
      F.Unsupported = Flags[2] == '1';
      Out.Functions.push_back(std::move(F));
    } else if (Rest.empty() || Rest.contains(' ')) {
      return false;
    } else if (Kind == "calls") {
      if (Out.Functions.empty()) return false;
      Out.Functions.back().Callees.insert(localKey(Rest, FileIndex));
    } else if (Kind == "wraps") {
      if (Out.Functions.empty()) return false;
      Out.Functions.back().WrappedCallees.insert(localKey(Rest, FileIndex));
    } else if (Kind == "address-taken") {
      Out.AddressTaken.insert(localKey(Rest, FileIndex));
    } else if (Kind == "external") {
      Out.ExternalCallees.insert(localKey(Rest, FileIndex));
    } else {
      return false;
    }
  }
  return true;
}

namespace {
// Functions that reach a pragma through direct calls within the files given: no assumption.
std::set<std::string> surelyReaching(const std::vector<FileSummary> &Files) {
  std::set<std::string> Sure;
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const FileSummary &File : Files)
      for (const auto &F : File.Functions) {
        if (Sure.count(F.Key)) continue;
        bool Reaches = F.HasSite;
        for (const std::string &Callee : F.Callees) Reaches = Reaches || Sure.count(Callee);
        if (Reaches) Changed = Sure.insert(F.Key).second || Changed;
      }
  }
  return Sure;
}
}  // namespace

ReachInfo::ReachInfo(const std::vector<FileSummary> &Files, bool WholeProgram)
    : IndirectReaches(!WholeProgram) {
  for (const FileSummary &File : Files)
    for (const auto &F : File.Functions) Defined.insert(F.Key);
  // Unknown functions (defined in none of the files) may reach a checkpoint, also when they are
  // only called through a pointer.
  for (const FileSummary &File : Files) {
    for (const std::string &Key : File.ExternalCallees)
      if (!Defined.count(Key)) Reaching.insert(Key);
    for (const std::string &Key : File.AddressTaken)
      if (!Defined.count(Key)) Reaching.insert(Key);
  }

  bool Changed = true;
  while (Changed) {
    Changed = false;
    if (!IndirectReaches) {
      for (const FileSummary &File : Files)
        for (const std::string &Key : File.AddressTaken)
          if (Reaching.count(Key)) IndirectReaches = true;
      if (IndirectReaches) Changed = true;
    }
    for (const FileSummary &File : Files)
      for (const auto &F : File.Functions) {
        if (Reaching.count(F.Key)) continue;
        bool Reaches = F.HasSite || (F.CallsIndirectly && IndirectReaches);
        for (const std::string &Callee : F.Callees)
          if (!Reaches && Reaching.count(Callee)) Reaches = true;
        if (Reaches) {
          Reaching.insert(F.Key);
          Changed = true;
        }
      }
  }
  std::set<std::string> Sure = surelyReaching(Files);
  for (const FileSummary &File : Files)
    for (const auto &F : File.Functions)
      if ((F.Unsupported || wrapsReachingCall(F)) && Reaching.count(F.Key) && !Sure.count(F.Key))
        Excluded.insert(F.Key);
}

bool ReachInfo::wrapsReachingCall(const FileSummary::Function &F) const {
  for (const std::string &Callee : F.WrappedCallees)
    if (Callee == "*" ? IndirectReaches : Reaching.count(Callee) != 0) return true;
  return false;
}


bool ReachInfo::reaches(const std::string &Key) const { return Reaching.count(Key) != 0; }

bool ReachInfo::instruments(const std::string &Key) const {
  return reaches(Key) && !Excluded.count(Key);
}

bool ReachInfo::isInstrumented(const FunctionDecl *FD, unsigned FileIndex) const {
  return FD->doesThisDeclarationHaveABody() && instruments(functionKey(FD, FileIndex));
}

bool ReachInfo::isReachingCall(const CallExpr *Call, unsigned FileIndex) const {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee) return IndirectReaches;
  if (isCheckpointSite(Callee)) return true;
  if (isOpaqueLibraryFunction(Callee)) return false;
  return reaches(functionKey(Callee, FileIndex));
}

}  // namespace c3pre
