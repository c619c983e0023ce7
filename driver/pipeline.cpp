#include "pipeline.hpp"

#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace c3cc {
namespace {

constexpr const char *kC3Define = "-D__C3__=1";

bool is_c_family(Language language) {
  return language == Language::C || language == Language::PreprocessedC;
}

void append_args(Command &command, const Invocation &inv, unsigned steps) {
  for (const Arg &arg : inv.args)
    if ((arg.steps & steps) && arg.source < 0) command.push_back(arg.text);
}

// Include directories every c3 translation unit sees: MPICH's headers and c3's own (c3/c3.h).
void append_c3_includes(Command &command, const Toolchain &tools) {
  for (const std::string &dir : tools.mpi_include_dirs) {
    command.push_back("-isystem");
    command.push_back(dir);
  }
  command.push_back("-I" + tools.include_dir);
  command.push_back(kC3Define);
}

std::string file_stem(const std::string &path) {
  return path == "-" ? "stdin" : fs::path(path).stem().string();
}

std::string extension_for(Language language) {
  switch (language) {
    case Language::C: return ".c";
    case Language::PreprocessedC: return ".i";
    case Language::Assembly: return ".s";
    case Language::AssemblyWithCpp: return ".S";
  }
  return ".c";
}

// What one source becomes, and the names of its intermediate files.
struct SourcePlan {
  std::string input;         // the file clang reads (a copy of stdin for "-")
  std::string preprocessed;  // clang -E output (C only)
  std::string precompiled;   // c3-precompile output
  std::string product;       // .o / .s named by the user or the default; temporary when linking
  std::string dep_target;    // what -MD names as the target when the user gave no -MT
  std::string dep_file;      // where -MD writes when the user gave no -MF
};

class Planner {
 public:
  Planner(const Invocation &inv, const Toolchain &tools, std::string temp_dir)
      : inv_(inv), tools_(tools), temp_dir_(std::move(temp_dir)) {}

  Plan run() {
    check_outputs();
    for (std::size_t i = 0; i < inv_.sources.size(); ++i) sources_.push_back(name_files(i));
    for (std::size_t i = 0; i < inv_.sources.size(); ++i) {
      const Language language = inv_.sources[i].language;
      if (language == Language::C) preprocess(i);
      if (is_c_family(language)) check(i);
      if (!is_c_family(language)) compile_assembly(i);
    }
    precompile();
    for (std::size_t i = 0; i < inv_.sources.size(); ++i)
      if (is_c_family(inv_.sources[i].language)) compile(i);
    if (inv_.stage == Stage::Link) {
      link();
    } else {
      for (const Arg &arg : inv_.args)
        if (arg.steps == kLink && arg.source < 0 && arg.text[0] != '-')
          plan_.unused_linker_inputs.push_back(arg.text);
    }
    return std::move(plan_);
  }

 private:
  void check_outputs() const {
    const bool one_output_per_source = inv_.stage == Stage::Compile || inv_.stage == Stage::Assemble;
    if (one_output_per_source && !inv_.output.empty() && inv_.sources.size() > 1)
      throw UsageError("cannot specify -o when generating multiple output files");
  }

  std::string temp_file(const std::string &name) const { return temp_dir_ + "/" + name; }

  // Distinct names in the temporary directory even for dir1/a.c and dir2/a.c.
  std::string unique_stem(const std::string &path) {
    const std::string stem = file_stem(path);
    const int seen = stems_seen_[stem]++;
    return seen == 0 ? stem : stem + "-" + std::to_string(seen);
  }

  SourcePlan name_files(std::size_t index) {
    const Source &source = inv_.sources[index];
    const std::string stem = unique_stem(source.path);
    SourcePlan files;
    files.input = source.path;
    if (source.path == "-") {
      files.input = temp_file("stdin" + extension_for(source.language));
      plan_.stdin_copy = files.input;
    }
    files.preprocessed = temp_file(stem + ".i");
    files.precompiled = temp_file(stem + ".c3.i");
    const std::string cwd_stem = file_stem(source.path);
    switch (inv_.stage) {
      case Stage::Compile:
        files.product = inv_.output.empty() ? cwd_stem + ".o" : inv_.output;
        files.dep_target = files.product;
        break;
      case Stage::Assemble:
        files.product = inv_.output.empty() ? cwd_stem + ".s" : inv_.output;
        files.dep_target = files.product;
        break;
      case Stage::Link:
        files.product = temp_file(stem + ".o");
        files.dep_target = cwd_stem + ".o";
        break;
      case Stage::SyntaxOnly:
      case Stage::Preprocess:
        files.dep_target = cwd_stem + ".o";
        break;
    }
    // Like clang: next to the named output (prog.d for -o prog, obj/x.d for -o obj/x.o).
    const bool named_after_output =
        !inv_.output.empty() && (inv_.stage != Stage::Link || inv_.sources.size() == 1);
    files.dep_file =
        fs::path(named_after_output ? inv_.output : cwd_stem).replace_extension(".d").string();
    return files;
  }

  void append_dependency_defaults(Command &command, const SourcePlan &files) const {
    if (!inv_.writes_dep_file) return;
    // Without these, clang would name the dependency file and target after the temporary file.
    if (!inv_.has_dep_file_name && !has_wp_dep_file()) {
      command.push_back("-MF");
      command.push_back(files.dep_file);
    }
    if (!inv_.has_dep_target) {
      command.push_back("-MT");
      command.push_back(files.dep_target);
    }
  }

  // -Wp,-MD,<file> names the dependency file itself.
  bool has_wp_dep_file() const {
    for (const Arg &arg : inv_.args)
      if (arg.text.rfind("-Wp,", 0) == 0 &&
          (arg.text.find(",-MD,") != std::string::npos || arg.text.find(",-MMD,") != std::string::npos))
        return true;
    return false;
  }

  Command clang_command() const {
    Command command{tools_.clang};
    if (inv_.verbose) command.push_back("-v");
    return command;
  }

  void preprocess(std::size_t index) {
    const SourcePlan &files = sources_[index];
    Command command = clang_command();
    command.push_back("-E");
    append_args(command, inv_, kPreprocess);
    append_dependency_defaults(command, files);
    // The check step reports warnings (and unknown options) once, about the user's source; the
    // preprocessing must not repeat them. #pragma ccc_checkpoint passes through -E untouched.
    command.push_back("-Qunused-arguments");
    command.push_back("-w");
    append_c3_includes(command, tools_);
    // The contract with the runtime, seen by c3-precompile as a system header.
    command.insert(command.end(), {"-isystem", tools_.include_dir, "-include", "c3/c3_abi.h"});
    command.insert(command.end(), {"-x", "c", files.input, "-o", files.preprocessed});
    plan_.steps.push_back(Step{StepKind::Preprocess, std::move(command)});
  }

  // The user's source as plain clang would see it, for its warnings and errors: quoted from the
  // source, with macro expansions, at the right lines. c3-precompile knows #pragma
  // ccc_checkpoint; dependency files are the preprocessing's to write.
  void check(std::size_t index) {
    const SourcePlan &files = sources_[index];
    const bool preprocessed = inv_.sources[index].language == Language::PreprocessedC;
    Command all;
    append_args(all, inv_, preprocessed ? kCompile : kPreprocess | kCompile);
    Command command = clang_command();
    command.push_back("-fsyntax-only");
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i] == "-MF" || all[i] == "-MT" || all[i] == "-MQ") {
        ++i;  // and its value
        continue;
      }
      if (!writes_dependencies(all[i])) command.push_back(all[i]);
    }
    command.push_back("-Qunused-arguments");
    if (!preprocessed) append_c3_includes(command, tools_);
    command.insert(command.end(), {"-x", preprocessed ? "cpp-output" : "c", files.input});
    plan_.steps.push_back(Step{StepKind::Check, std::move(command)});
  }

  static bool writes_dependencies(const std::string &arg) {
    return arg.rfind("-M", 0) == 0 || (arg.rfind("-Wp,", 0) == 0 && arg.find("-M") != std::string::npos);
  }

  // Assembly has no C state to instrument: clang assembles it directly.
  void compile_assembly(std::size_t index) {
    const SourcePlan &files = sources_[index];
    const bool with_cpp = inv_.sources[index].language == Language::AssemblyWithCpp;
    Command command = clang_command();
    append_args(command, inv_, kPreprocess | kCompile);
    if (with_cpp) append_dependency_defaults(command, files);
    command.push_back("-Qunused-arguments");
    append_c3_includes(command, tools_);
    command.insert(command.end(), {"-x", with_cpp ? "assembler-with-cpp" : "assembler"});
    add_compile_action(command, files.input, files.product);
    plan_.steps.push_back(Step{StepKind::Compile, std::move(command)});
  }

  void add_compile_action(Command &command, const std::string &input, const std::string &product) const {
    switch (inv_.stage) {
      case Stage::SyntaxOnly:
        command.insert(command.end(), {"-fsyntax-only", input});
        return;
      case Stage::Assemble:
        command.insert(command.end(), {"-S", input, "-o", product});
        return;
      default:
        command.insert(command.end(), {"-c", input, "-o", product});
        return;
    }
  }

  bool user_chose_linker() const {
    for (const Arg &arg : inv_.args)
      if ((arg.steps & kLink) && arg.text.rfind("-fuse-ld=", 0) == 0) return true;
    return false;
  }

  // Whether the link takes code other than this call's sources (objects, archives, libraries).
  bool links_other_code() const { return inv_.has_linker_objects || links_other_libraries(inv_); }

  // Objects that a later link may combine with others carry their link unit (link_units.hpp).
  bool embeds_link_units() const {
    if (inv_.stage != Stage::Compile && !(inv_.stage == Stage::Link && links_other_code()))
      return false;
    for (const Arg &arg : inv_.args)  // bitcode objects have no sections of ours
      if ((arg.steps & kCompile) && (arg.text.rfind("-flto", 0) == 0 ||
                                     arg.text == "-emit-llvm"))
        return false;
    return true;
  }

  void precompile() {
    Command command{tools_.precompiler};
    if (is_whole_program(inv_)) command.push_back("--whole-program");
    if (embeds_link_units()) {
      command.push_back("--embed-units");
      Command compile_args;
      append_args(compile_args, inv_, kCompile);
      for (const std::string &arg : compile_args) command.insert(command.end(), {"--compile-arg", arg});
    }
    bool any = false;
    for (std::size_t i = 0; i < inv_.sources.size(); ++i) {
      const Language language = inv_.sources[i].language;
      if (!is_c_family(language)) continue;
      const SourcePlan &files = sources_[i];
      command.push_back(language == Language::C ? files.preprocessed : files.input);
      command.push_back(files.precompiled);
      any = true;
    }
    if (!any) return;
    Command parse_args;
    append_args(parse_args, inv_, kParse);
    if (!parse_args.empty()) {
      command.push_back("--");
      command.insert(command.end(), parse_args.begin(), parse_args.end());
    }
    plan_.steps.push_back(Step{StepKind::Precompile, std::move(command)});
  }

  void compile(std::size_t index) {
    const SourcePlan &files = sources_[index];
    Command command = clang_command();
    command.insert(command.end(), {"-x", "cpp-output"});
    add_compile_action(command, files.precompiled, files.product);
    append_args(command, inv_, kCompile);
    // Its warnings would quote the rewritten code; the check step showed the user's.
    command.push_back("-w");
    plan_.steps.push_back(Step{StepKind::Compile, std::move(command)});
  }

  void link() {
    Command command = clang_command();
    Command inputs;
    for (const Arg &arg : inv_.args) {
      if (!(arg.steps & kLink)) continue;
      inputs.push_back(arg.source >= 0 ? sources_[static_cast<std::size_t>(arg.source)].product
                                       : arg.text);
    }
    command.insert(command.end(), inputs.begin(), inputs.end());
    if (links_other_code()) plan_.steps.push_back(Step{StepKind::InstrumentAtLink, inputs});
    // Fixed addresses for functions and globals; the build-id identifies the executable in
    // every checkpoint.
    command.insert(command.end(), {"-no-pie", "-Wl,--build-id=sha1"});
    // Linking c3's archives takes ld.bfd twice as long as ld.gold (~140 against ~65 ms on
    // bench/multifile); a linker the user chose stays.
    if (tools_.has_gold && !user_chose_linker()) command.push_back("-fuse-ld=gold");
    command.insert(command.end(), tools_.link_libraries.begin(), tools_.link_libraries.end());
    command.insert(command.end(), {"-o", inv_.output.empty() ? "a.out" : inv_.output});
    plan_.steps.push_back(Step{StepKind::Link, std::move(command)});
  }

  const Invocation &inv_;
  const Toolchain &tools_;
  const std::string temp_dir_;
  std::vector<SourcePlan> sources_;
  std::map<std::string, int> stems_seen_;
  Plan plan_;
};

}  // namespace

bool links_other_libraries(const Invocation &inv) {
  for (const Arg &arg : inv.args)
    if ((arg.steps & kLink) && arg.text.rfind("-l", 0) == 0 && !is_system_library(arg.text))
      return true;
  return false;
}

bool is_whole_program(const Invocation &inv) {
  // Exact reachability needs every C function of the program in one precompiler call: this
  // call must link an executable from its own sources only. Objects, archives and libraries
  // other than the system's given here may hold code that calls into these sources or hands
  // them function pointers, so they force the per-file analysis (the link then refines it over
  // the objects' link units, link_units.hpp).
  std::size_t c_sources = 0;
  for (const Source &source : inv.sources)
    if (is_c_family(source.language)) ++c_sources;
  return c_sources >= 2 && inv.stage == Stage::Link && !inv.has_linker_objects &&
         !links_other_libraries(inv);
}

Plan plan_pass_through(const Invocation &inv, const Toolchain &tools) {
  Command command{tools.clang};
  command.insert(command.end(), inv.original.begin(), inv.original.end());
  if (inv.stage == Stage::Preprocess) append_c3_includes(command, tools);
  Plan plan;
  plan.steps.push_back(Step{StepKind::PassThrough, std::move(command)});
  return plan;
}

Plan plan_pipeline(const Invocation &inv, const Toolchain &tools, const std::string &temp_dir) {
  return Planner(inv, tools, temp_dir).run();
}

}  // namespace c3cc
