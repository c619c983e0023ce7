#include "command_line.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

namespace c3cc {
namespace {

constexpr unsigned kAllSteps = kPreprocess | kParse | kCompile | kLink;
constexpr unsigned kCompilerSteps = kPreprocess | kCompile | kLink;  // not the precompiler's parse

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Options that take a value, either as the next argument (-I dir) or, when `joined`, attached
// (-Idir); and the steps they go to. Longer names come before shorter names they start with.
struct ValueOption {
  std::string_view name;
  unsigned steps;
  bool joined;
};
constexpr std::array kValueOptions{
    ValueOption{"-I", kPreprocess, true},
    ValueOption{"-D", kPreprocess, true},
    ValueOption{"-U", kPreprocess, true},
    ValueOption{"-include", kPreprocess, true},
    ValueOption{"-imacros", kPreprocess, true},
    ValueOption{"-isystem", kPreprocess, true},
    ValueOption{"-iquote", kPreprocess, true},
    ValueOption{"-idirafter", kPreprocess, true},
    ValueOption{"-iprefix", kPreprocess, true},
    ValueOption{"-iwithprefixbefore", kPreprocess, true},
    ValueOption{"-iwithprefix", kPreprocess, true},
    ValueOption{"-isysroot", kAllSteps, true},
    ValueOption{"-Xpreprocessor", kPreprocess, false},
    ValueOption{"-Xclang", kCompile, false},
    ValueOption{"-Xassembler", kCompile, false},
    ValueOption{"-Xlinker", kLink, false},
    ValueOption{"-target", kAllSteps, false},
    ValueOption{"-mllvm", kCompile | kLink, false},
    ValueOption{"-L", kLink, true},
    ValueOption{"-u", kLink, true},
    ValueOption{"-T", kLink, true},
    ValueOption{"-z", kLink, false},
};

std::optional<Language> language_named(std::string_view name) {
  if (name == "c") return Language::C;
  if (name == "cpp-output" || name == "c-cpp-output") return Language::PreprocessedC;
  if (name == "assembler") return Language::Assembly;
  if (name == "assembler-with-cpp") return Language::AssemblyWithCpp;
  return std::nullopt;
}

// Language of a file without -x, or nullopt for files that go to the linker.
std::optional<Language> language_of_file(std::string_view path) {
  if (ends_with(path, ".c")) return Language::C;
  if (ends_with(path, ".i")) return Language::PreprocessedC;
  if (ends_with(path, ".s")) return Language::Assembly;
  if (ends_with(path, ".S") || ends_with(path, ".sx")) return Language::AssemblyWithCpp;
  for (std::string_view cxx : {".cc", ".cp", ".cpp", ".cxx", ".c++", ".C", ".CPP", ".ii", ".m", ".mm"})
    if (ends_with(path, cxx))
      throw UsageError(std::string(path) +
                       ": only C sources are supported (c3 checkpoints C programs); compile this "
                       "file separately and link its object");
  return std::nullopt;
}

bool is_dependency_output_flag(std::string_view flag) {
  return flag == "-MD" || flag == "-MMD";
}

class Parser {
 public:
  explicit Parser(const std::vector<std::string> &argv) : argv_(argv) {}

  Invocation run() {
    for (index_ = 0; index_ < argv_.size(); ++index_) parse_one(argv_[index_]);
    if (stdin_without_language_ && inv_.stage != Stage::Preprocess)
      throw UsageError("-E or -x required when input is from standard input");
    return std::move(inv_);
  }

 private:
  void add(std::string text, unsigned steps) { inv_.args.push_back(Arg{std::move(text), steps, -1}); }

  void keep_original(const std::string &text) { inv_.original.push_back(text); }

  // The value of an option given as "-o value" (returns the next argument) or "-ovalue".
  std::string take_value(const std::string &arg, std::string_view name) {
    if (arg.size() > name.size()) return arg.substr(name.size());
    if (index_ + 1 >= argv_.size())
      throw UsageError("argument to '" + std::string(name) + "' is missing (expected 1 value)");
    keep_original(argv_[index_ + 1]);
    return argv_[++index_];
  }

  void add_input(const std::string &path) {
    std::optional<Language> language = forced_language_;
    if (!language && path != "-") language = language_of_file(path);
    if (path == "-" && !language) {
      stdin_without_language_ = true;  // fine for -E, which may still follow
      language = Language::C;
    }
    if (!language) {
      inv_.has_linker_objects = true;
      add(path, kLink);
      return;
    }
    inv_.sources.push_back(Source{path, *language});
    inv_.args.push_back(Arg{path, kLink, static_cast<int>(inv_.sources.size() - 1)});
  }

  void set_language(const std::string &name) {
    if (name == "none") {
      forced_language_.reset();
      return;
    }
    forced_language_ = language_named(name);
    if (!forced_language_)
      throw UsageError("language '" + name + "' is not supported (c3 checkpoints C programs)");
  }

  // Shared libraries and PIE move functions and globals between runs; checkpoints need them
  // at fixed addresses.
  static void check_link_kind(std::string_view flag) {
    if (flag == "-shared" || flag == "--shared")
      throw UsageError("-shared is not supported: c3 programs must be linked -no-pie");
    if (flag == "-pie" || flag == "-static-pie")
      throw UsageError(std::string(flag) + " is not supported: c3 programs must be linked -no-pie");
    if (starts_with(flag, "-Wl,")) {
      for (std::size_t begin = 4; begin <= flag.size();) {
        const std::size_t end = std::min(flag.find(',', begin), flag.size());
        const std::string_view linker_flag = flag.substr(begin, end - begin);
        if (linker_flag == "-shared" || linker_flag == "--shared" || linker_flag == "-pie" ||
            linker_flag == "--pie")
          throw UsageError("-Wl," + std::string(linker_flag) +
                           " is not supported: c3 programs must be linked -no-pie");
        begin = end + 1;
      }
    }
  }

  void parse_one(const std::string &arg) {
    // c3cc's own options are not part of what is handed to clang for -E.
    if (arg == "-show" || arg == "-###") {
      inv_.show = true;
      return;
    }
    if (arg == "--help" || arg == "-help") {
      inv_.help = true;
      return;
    }
    if (arg == "--version") {
      inv_.version = true;
      return;
    }
    keep_original(arg);

    if (arg == "-" || arg.empty() || arg[0] != '-') return add_input(arg);
    if (arg == "-v") {
      inv_.verbose = true;
      return;
    }
    check_link_kind(arg);
    if (arg == "-c") return set_stage(Stage::Compile);
    if (arg == "-S") return set_stage(Stage::Assemble);
    if (arg == "-E" || arg == "-M" || arg == "-MM") {
      if (arg != "-E") add(arg, kPreprocess);
      return set_stage(Stage::Preprocess);
    }
    if (arg == "-fsyntax-only") return set_stage(Stage::SyntaxOnly);
    if (starts_with(arg, "-o")) {
      inv_.output = take_value(arg, "-o");
      return;
    }
    if (starts_with(arg, "-x")) return set_language(take_value(arg, "-x"));
    // c3 always links -no-pie; -pipe is meaningless with temporary files.
    if (arg == "-no-pie" || arg == "-nopie" || arg == "-pipe") return;

    if (is_dependency_output_flag(arg)) {
      inv_.writes_dep_file = true;
      return add(arg, kPreprocess);
    }
    if (arg == "-MP" || arg == "-MG") return add(arg, kPreprocess);
    for (std::string_view name : {"-MF", "-MT", "-MQ"}) {
      if (starts_with(arg, name)) {
        (name == "-MF" ? inv_.has_dep_file_name : inv_.has_dep_target) = true;
        add(std::string(name), kPreprocess);
        return add(take_value(arg, name), kPreprocess);
      }
    }
    if (starts_with(arg, "-Wp,")) {
      if (arg.find(",-MD") != std::string::npos || arg.find(",-MMD") != std::string::npos)
        inv_.writes_dep_file = true;
      return add(arg, kPreprocess);
    }
    if (starts_with(arg, "-Wl,")) return add(arg, kLink);
    if (starts_with(arg, "-Wa,")) return add(arg, kCompile);
    if (starts_with(arg, "-l")) {
      std::string library = take_value(arg, "-l");
      // MPICH comes last on the link line, after c3's PMPI layer; an earlier -lmpi would bind
      // the application's MPI calls to MPICH directly and bypass the protocol.
      if (library == "mpi" || library == "mpich") return;
      return add("-l" + library, kLink);
    }

    if (arg == "-nostdinc" || arg == "-nostdlibinc" || arg == "-nobuiltininc" || arg == "-undef" ||
        arg == "-C" || arg == "-CC" || arg == "-P" || arg == "-H" || arg == "-trigraphs" ||
        arg == "-traditional-cpp")
      return add(arg, kPreprocess);
    for (const ValueOption &option : kValueOptions) {
      if (!starts_with(arg, option.name) || (arg.size() > option.name.size() && !option.joined))
        continue;
      std::string value = take_value(arg, option.name);
      // Short options stay joined (-Idir), so a value starting with '-' is never misread.
      if (option.name.size() == 2) return add(std::string(option.name) + value, option.steps);
      add(std::string(option.name), option.steps);
      return add(value, option.steps);
    }

    if (starts_with(arg, "-std=") || arg == "-ansi") return add(arg, kPreprocess | kParse | kCompile);
    if (starts_with(arg, "-fuse-ld=") || arg == "-rdynamic" || arg == "-static" ||
        starts_with(arg, "-static-") || arg == "-s" || arg == "-nostdlib" ||
        arg == "-nodefaultlibs" || arg == "-nostartfiles" || arg == "-r")
      return add(arg, kLink);
    if (starts_with(arg, "-f") || starts_with(arg, "-m") || arg == "-pthread" ||
        starts_with(arg, "--target=") || starts_with(arg, "--sysroot="))
      return add(arg, kAllSteps);
    if (starts_with(arg, "-O")) return add(arg, kCompilerSteps);
    if (starts_with(arg, "-g")) return add(arg, kCompile | kLink);
    if (starts_with(arg, "-W") || arg == "-w" || starts_with(arg, "-pedantic"))
      return add(arg, kPreprocess | kCompile);
    if (starts_with(arg, "-print-") || starts_with(arg, "--print-") || starts_with(arg, "-dump")) {
      inv_.query = true;
      return;
    }
    // Anything else is passed to clang at every step, as mpicc passes it to its compiler.
    add(arg, kCompilerSteps);
  }

  void set_stage(Stage stage) {
    // -E beats -fsyntax-only beats -S beats -c, whatever the order (as with gcc and clang).
    if (static_cast<int>(stage) < static_cast<int>(inv_.stage)) inv_.stage = stage;
  }

  const std::vector<std::string> &argv_;
  std::size_t index_ = 0;
  std::optional<Language> forced_language_;
  bool stdin_without_language_ = false;
  Invocation inv_;
};

}  // namespace

Invocation parse_command_line(const std::vector<std::string> &argv) { return Parser(argv).run(); }

}  // namespace c3cc
