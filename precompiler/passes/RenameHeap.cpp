// Renames the application's malloc family to the runtime's arena allocator (__c3_malloc, ...),
// wherever the program names them: calls and function pointers alike. Allocations made inside
// libraries (MPI, libc) keep the system allocator and are never part of a checkpoint. atexit goes
// to the runtime too, which records the handlers so a restarted process registers them again.
#include "Pass.h"
#include "Store.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace c3pre {
namespace {

const char *arenaName(StringRef Name) {
  static const std::pair<const char *, const char *> Table[] = {
      {"malloc", "__c3_malloc"},
      {"calloc", "__c3_calloc"},
      {"realloc", "__c3_realloc"},
      {"reallocarray", "__c3_reallocarray"},
      {"free", "__c3_free"},
      {"posix_memalign", "__c3_posix_memalign"},
      {"aligned_alloc", "__c3_aligned_alloc"},
      {"memalign", "__c3_memalign"},
      {"valloc", "__c3_valloc"},
      {"strdup", "__c3_strdup"},
      {"__strdup", "__c3_strdup"},
      {"strndup", "__c3_strndup"},
      {"__strndup", "__c3_strndup"},
      {"malloc_usable_size", "__c3_malloc_usable_size"},
      // libc allocating for the program, or growing the program's blocks with its own realloc.
      {"getline", "__c3_getline"},
      {"getdelim", "__c3_getdelim"},
      {"__getdelim", "__c3_getdelim"},
      {"asprintf", "__c3_asprintf"},
      {"vasprintf", "__c3_vasprintf"},
      {"realpath", "__c3_realpath"},
      {"getcwd", "__c3_getcwd"},
      {"get_current_dir_name", "__c3_get_current_dir_name"},
      // Not the heap, but state libc keeps for the program: the handlers must run after a restart.
      {"atexit", "__c3_atexit"},
  };
  for (const auto &Entry : Table)
    if (Name == Entry.first) return Entry.second;
  return nullptr;
}

class HeapRenamer : public RecursiveASTVisitor<HeapRenamer> {
 public:
  explicit HeapRenamer(PassContext &PC) : PC(PC) {}

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl());
    if (!FD || !FD->getIdentifier()) return true;
    const char *Replacement = arenaName(FD->getName());
    if (!Replacement) return true;
    const SourceManager &SM = PC.Ctx.getSourceManager();
    // A program's own function of that name stays; glibc's inline versions (getline at -O2) don't.
    if (const FunctionDecl *Definition = FD->getDefinition())
      if (!SM.isInSystemHeader(Definition->getLocation())) return true;
    SourceLocation Loc = Ref->getLocation();
    if (!Loc.isFileID() || SM.isInSystemHeader(Loc) || SM.getFileID(Loc) != SM.getMainFileID())
      return true;
    std::string Text = Replacement;
    // Declared by the program without a prototype (`char strdup ();`, as autoconf's function
    // probes write): c3's function is called through a pointer of that type, so the call is
    // exactly as valid as it was.
    if (!FD->hasPrototype())
      Text = "((" + declareText(PC.Ctx, PC.Ctx.getPointerType(FD->getType()), "") + ")" + Text + ")";
    PC.Rewrite.ReplaceText(Loc, unsigned(FD->getName().size()), Text);
    return true;
  }

 private:
  PassContext &PC;
};

class RenameHeapPass : public Pass {
 public:
  const char *name() const override { return "rename-heap"; }
  void run(PassContext &PC) override {
    HeapRenamer Renamer(PC);
    Renamer.TraverseDecl(PC.Ctx.getTranslationUnitDecl());
  }
};

}  // namespace

std::unique_ptr<Pass> createRenameHeapPass() { return std::make_unique<RenameHeapPass>(); }

}  // namespace c3pre
