// The program's open files are part of its checkpoints (runtime/io/open_files.hpp). This pass
//  - renames the calls that open and close files (fopen, open, pipe, close, ...) to the
//    runtime's, which keep the table of open files; a call names its site first
//    (`(__c3_io_site = "f.c:12", __c3_fopen(path, mode))`), so a file that cannot be reopened
//    at a restart is reported with the line that opened it;
//  - translates a FILE * wherever the program passes one to a libc function
//    (`fputs(s, __c3_stream(log))`): the program holds the address of a runtime slot, which
//    stays valid across a restart, and libc needs its own FILE object;
//  - replaces stdin/stdout/stderr, where the program reads them into a variable, by their slots:
//    glibc's objects move when a restarted process maps libc elsewhere;
//  - points a function pointer to such a libc function (`int (*put)(int, FILE *) = fputc;`) at a
//    thunk that translates the FILE * (`__c3_thunk_fputc`), defined before the declaration that
//    uses it; a variadic one (fprintf) cannot be forwarded and is an error with a hint.
#include <set>

#include "Diagnostics.h"
#include "Pass.h"
#include "Store.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

const char *runtimeName(StringRef Name) {
  static const std::pair<const char *, const char *> Table[] = {
      {"fopen", "__c3_fopen"},           {"fopen64", "__c3_fopen"},
      {"fdopen", "__c3_fdopen"},         {"freopen", "__c3_freopen"},
      {"freopen64", "__c3_freopen"},     {"fclose", "__c3_fclose"},
      {"tmpfile", "__c3_tmpfile"},       {"tmpfile64", "__c3_tmpfile"},
      {"popen", "__c3_popen"},           {"pclose", "__c3_pclose"},
      {"fmemopen", "__c3_fmemopen"},     {"open_memstream", "__c3_open_memstream"},
      {"open", "__c3_open"},             {"open64", "__c3_open"},
      {"openat", "__c3_openat"},         {"openat64", "__c3_openat"},
      {"creat", "__c3_creat"},           {"creat64", "__c3_creat"},
      {"mkstemp", "__c3_mkstemp"},       {"mkstemp64", "__c3_mkstemp"},
      {"mkostemp", "__c3_mkostemp"},     {"mkostemp64", "__c3_mkostemp"},
      {"close", "__c3_close"},           {"dup", "__c3_dup"},
      {"dup2", "__c3_dup2"},             {"dup3", "__c3_dup3"},
      {"pipe", "__c3_pipe"},             {"pipe2", "__c3_pipe2"},
      {"socket", "__c3_socket"},         {"socketpair", "__c3_socketpair"},
      {"accept", "__c3_accept"},
  };
  for (const auto &Entry : Table)
    if (Name == Entry.first) return Entry.second;
  return nullptr;
}

int standardStream(const VarDecl *VD) {
  if (!VD->hasExternalStorage() || !VD->getIdentifier()) return -1;
  StringRef Name = VD->getName();
  return Name == "stdin" ? 0 : Name == "stdout" ? 1 : Name == "stderr" ? 2 : -1;
}

bool isFilePointer(QualType T) {
  const auto *Pointer = T.getCanonicalType()->getAs<PointerType>();
  if (!Pointer) return false;
  const auto *Record = Pointer->getPointeeType()->getAs<RecordType>();
  return Record && Record->getDecl()->getIdentifier() &&
         Record->getDecl()->getName() == "_IO_FILE";
}

class FileTracker : public RecursiveASTVisitor<FileTracker> {
 public:
  explicit FileTracker(PassContext &PC) : PC(PC), SM(PC.Ctx.getSourceManager()) {}

  // Declared by libc (its inline versions included), not defined by the program.
  bool isLibc(const FunctionDecl *FD) const {
    if (const FunctionDecl *Definition = FD->getDefinition())
      if (!SM.isInSystemHeader(Definition->getLocation())) return false;
    return SM.isInSystemHeader(FD->getCanonicalDecl()->getLocation());
  }

  bool editable(SourceLocation Loc) const {
    return Loc.isValid() && Loc.isFileID() && !SM.isInSystemHeader(Loc) &&
           SM.getFileID(Loc) == SM.getMainFileID();
  }

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !FD->getIdentifier() || !isLibc(FD)) return true;
    if (runtimeName(FD->getName())) {
      const auto *Ref = dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts());
      // The call stays a direct call of a runtime function (a call through a pointer would be a
      // call site to the passes after this one), after a comma expression naming the site.
      if (Ref && FD->hasPrototype() && editable(Call->getBeginLoc()) &&
          editable(Call->getEndLoc())) {
        Callees.insert(Ref);
        PC.Rewrite.InsertTextBefore(Call->getBeginLoc(),
                                    "(__c3_io_site = \"" + PC.Source.where(Ref->getLocation()) +
                                        "\", ");
        PC.Rewrite.InsertTextAfterToken(Call->getEndLoc(), ")");
      }
      return true;  // the runtime's version translates its FILE * itself
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      DirectCalls.insert(Ref);
    for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
      if (!isFilePointer(FD->getParamDecl(I)->getType())) continue;
      const Expr *Arg = Call->getArg(I);
      if (const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts()))
        if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()); VD && standardStream(VD) >= 0) {
          Untouched.insert(Ref);  // glibc's own stream, read now: nothing to translate
          continue;
        }
      if (!editable(Arg->getBeginLoc()) || !editable(Arg->getEndLoc())) continue;
      PC.Rewrite.InsertTextBefore(Arg->getBeginLoc(), "__c3_stream(");
      PC.Rewrite.InsertTextAfterToken(Arg->getEndLoc(), ")");
    }
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    SourceLocation Loc = Ref->getLocation();
    if (!editable(Loc)) return true;
    if (const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl())) {
      if (!FD->getIdentifier() || !isLibc(FD)) return true;
      const char *Replacement = runtimeName(FD->getName());
      if (!Replacement) {
        if (takesFile(FD) && !DirectCalls.count(Ref)) throughThunk(Ref, FD);
        return true;
      }
      // A function pointer keeps the original's type; so does a call through a declaration
      // without a prototype (`char fopen ();` in a configure probe), exactly as valid as it was.
      std::string Text = Replacement;
      if (!Callees.count(Ref))
        Text = "((__typeof__(" + FD->getName().str() + ") *)" + Text + ")";
      PC.Rewrite.ReplaceText(Loc, unsigned(FD->getName().size()), Text);
      return true;
    }
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    int Index = VD ? standardStream(VD) : -1;
    if (Index < 0 || Untouched.count(Ref) || !SM.isInSystemHeader(VD->getLocation())) return true;
    // Only where its value is read (not `stdout = f`, `&stdout`, `sizeof stdout`).
    auto Parents = PC.Ctx.getParents(*Ref);
    const auto *Cast = Parents.empty() ? nullptr : Parents[0].get<ImplicitCastExpr>();
    if (!Cast || Cast->getCastKind() != CK_LValueToRValue) return true;
    std::string Name = VD->getName().str();
    PC.Rewrite.ReplaceText(Loc, unsigned(Name.size()),
                           "((__typeof__(" + Name + "))&__c3_streams[" + std::to_string(Index) +
                               "])");
    return true;
  }

  // A libc function taking a FILE * used as a function pointer: a call through the pointer
  // would hand libc a slot, so the pointer is to a thunk that translates it.
  void throughThunk(const DeclRefExpr *Ref, const FunctionDecl *FD) {
    const std::string Name = FD->getName().str();
    if (FD->isVariadic()) {
      reportError(PC.diags(), Ref->getLocation(),
                  "'" + Name + "' used as a function pointer: c3 cannot translate the FILE * "
                  "passed through it",
                  "call '" + Name + "' directly, or through a function of your own");
      return;
    }
    PC.Rewrite.ReplaceText(Ref->getLocation(), unsigned(Name.size()), "__c3_thunk_" + Name);
    if (!Thunks.insert(FD->getCanonicalDecl()).second) return;
    std::string Params, Args;
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      const std::string Arg = "__c3_a" + std::to_string(I);
      QualType T = FD->getParamDecl(I)->getType();
      Params += (I ? ", " : "") + declareText(PC.Ctx, T, Arg);
      Args += (I ? ", " : "") + (isFilePointer(T) ? "__c3_stream(" + Arg + ")" : Arg);
    }
    if (Params.empty()) Params = "void";
    QualType Result = FD->getReturnType();
    std::string Call = Name + "(" + Args + ")";
    ThunkText += "static " + declareText(PC.Ctx, Result, "__c3_thunk_" + Name + "(" + Params + ")") +
                 " { " + (Result->isVoidType() ? Call + ";" : "return " + Call + ";") + " }\n";
  }

  // Thunks made while traversing a top-level declaration go right before it.
  std::string takeThunkText() { return std::move(ThunkText); }

 private:
  static bool takesFile(const FunctionDecl *FD) {
    for (const ParmVarDecl *P : FD->parameters())
      if (isFilePointer(P->getType())) return true;
    return false;
  }

  PassContext &PC;
  const SourceManager &SM;
  std::set<const DeclRefExpr *> DirectCalls;  // libc functions called directly
  std::set<const FunctionDecl *> Thunks;
  std::string ThunkText;
  std::set<const DeclRefExpr *> Callees;    // renamed functions called directly, with a site
  std::set<const DeclRefExpr *> Untouched;  // stdin/stdout/stderr passed straight to libc
};

class TrackFilesPass : public Pass {
 public:
  const char *name() const override { return "track-files"; }
  void run(PassContext &PC) override {
    FileTracker Tracker(PC);
    const SourceManager &SM = PC.Ctx.getSourceManager();
    for (Decl *D : PC.Ctx.getTranslationUnitDecl()->decls()) {
      Tracker.TraverseDecl(D);
      std::string Thunks = Tracker.takeThunkText();
      if (!Thunks.empty() && D->getBeginLoc().isFileID() && SM.isInMainFile(D->getBeginLoc()))
        PC.Rewrite.InsertTextBefore(D->getBeginLoc(), Thunks);
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createTrackFilesPass() { return std::make_unique<TrackFilesPass>(); }

}  // namespace c3pre
