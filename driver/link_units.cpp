#include "link_units.hpp"

#include <cstdio>
#include <filesystem>
#include <vector>

#include "object_file.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace c3cc {
namespace {

constexpr const char *kUnitSection = ".c3.unit";

struct UnitObject {
  std::string object;  // as given on the command line
  std::string unit;    // extracted section
  std::string again;   // c3-precompile --relink writes this if the object must be compiled again
};

}  // namespace

int instrument_at_link(const Command &inputs, Command &link, const Toolchain &tools,
                       const std::string &temp_dir, bool verbose) {
  std::vector<UnitObject> units;
  bool other_code = false;
  for (const std::string &arg : inputs) {
    if (arg.rfind("-l", 0) == 0 && !is_system_library(arg)) other_code = true;
    if (arg.empty() || arg[0] == '-') continue;
    const InputKind kind = classify_link_input(arg);
    if (kind == InputKind::NotAFile) continue;
    std::optional<std::string> unit;
    if (kind == InputKind::Object) unit = read_object_section(arg, kUnitSection);
    if (!unit) {
      other_code = true;
      continue;
    }
    const std::string stem = temp_dir + "/link-unit-" + std::to_string(units.size());
    write_file(stem + ".unit", *unit);
    units.push_back(UnitObject{arg, stem + ".unit", stem + ".c3.i"});
  }
  if (units.empty()) return 0;

  Command relink{tools.precompiler, "--relink", "--clang", tools.clang};
  if (!other_code) relink.push_back("--whole-program");
  for (const UnitObject &unit : units) relink.insert(relink.end(), {unit.object, unit.unit, unit.again});
  if (int status = run_step(relink, verbose)) return status;

  std::string again_list;
  for (const UnitObject &unit : units) {
    const std::string object = unit.again + ".o";
    if (!fs::exists(object)) continue;
    for (std::string &arg : link)
      if (arg == unit.object) arg = object;
    again_list += (again_list.empty() ? "" : ", ") + unit.object;
  }
  if (verbose && !again_list.empty())
    std::fprintf(stderr, "c3cc: instrumented again for the whole program: %s\n", again_list.c_str());
  return 0;
}

}  // namespace c3cc
