// Parsing of c3cc's command line (mpicc/clang compatible) into what each pipeline step receives.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace c3cc {

// A command-line error reported as "c3cc: error: <message>".
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The steps of the pipeline an argument is passed to (bit mask).
enum StepMask : unsigned {
  kPreprocess = 1u << 0,  // clang -E
  kParse = 1u << 1,       // c3-precompile's own clang parse (after "--")
  kCompile = 1u << 2,     // clang -x cpp-output -c
  kLink = 1u << 3,        // final clang link
};

// Where the pipeline stops, as selected by -E/-M/-fsyntax-only/-S/-c.
enum class Stage { Preprocess, SyntaxOnly, Assemble, Compile, Link };

enum class Language {
  C,              // full pipeline: preprocess, precompile, compile
  PreprocessedC,  // .i: precompile, compile
  Assembly,       // .s: compiled (assembled) as is
  AssemblyWithCpp // .S: compiled as is (clang preprocesses it)
};

struct Source {
  std::string path;  // "-" is standard input
  Language language;
};

// One command-line argument and the steps it goes to. Sources sit in the list too (steps = kLink),
// so their objects take the source's place on the link line.
struct Arg {
  std::string text;
  unsigned steps = 0;
  int source = -1;  // index into Invocation::sources, or -1
};

struct Invocation {
  Stage stage = Stage::Link;
  std::string output;  // -o, empty when not given
  std::vector<Source> sources;
  std::vector<Arg> args;               // in command-line order
  std::vector<std::string> original;   // argv[1..] as given, minus c3cc's own options
  bool writes_dep_file = false;        // -MD/-MMD (also through -Wp,)
  bool has_dep_file_name = false;      // -MF
  bool has_dep_target = false;         // -MT/-MQ
  bool has_linker_objects = false;     // .o/.a/.so or other files handed to the linker
  bool verbose = false;                // -v
  bool show = false;                   // -show / -###
  bool help = false;
  bool version = false;
  bool query = false;                  // -print-*, -dump*: answered by clang itself
};

// Throws UsageError for unsupported or malformed arguments.
Invocation parse_command_line(const std::vector<std::string> &argv);

}  // namespace c3cc
