#include "toolchain.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "command_line.hpp"
#include "driver_config.hpp"

namespace fs = std::filesystem;

namespace c3cc {
namespace {

constexpr const char *kDefaultClang = "clang-14";
constexpr const char *kFallbackClang = "/usr/bin/clang-14";

bool is_executable(const fs::path &path) {
  return ::access(path.c_str(), X_OK) == 0 && !fs::is_directory(path);
}

bool found_on_path(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (is_executable(fs::path(dir.empty() ? "." : dir) / name)) return true;
  return false;
}

std::string choose_clang() {
  if (const char *override_clang = std::getenv("C3CC_CLANG"); override_clang && *override_clang)
    return override_clang;
  if (found_on_path(kDefaultClang) || !is_executable(kFallbackClang)) return kDefaultClang;
  return kFallbackClang;
}

fs::path executable_dir() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) throw UsageError("cannot locate the c3cc executable: " + error.message());
  return self.parent_path();
}

// Appends the arguments, leaving out -L directories that are already there.
void append(std::vector<std::string> &to, const char *const *list) {
  for (; *list; ++list) {
    const std::string arg = *list;
    if (arg.rfind("-L", 0) == 0 && std::find(to.begin(), to.end(), arg) != to.end()) continue;
    to.push_back(arg);
  }
}

}  // namespace

Toolchain find_toolchain() {
  const fs::path bin = executable_dir();
  const fs::path prefix = bin.parent_path();
  Toolchain tools;
  tools.clang = choose_clang();
  tools.precompiler = (bin / "c3-precompile").string();
  tools.include_dir = (prefix / "include").string();
  tools.library_dir = (prefix / "lib").string();
  append(tools.mpi_include_dirs, config::kMpiIncludeDirs);
  // By full path, so a user's -L directory cannot substitute other c3 libraries. The PMPI
  // layer comes first: it uses the runtime, and MPICH (last) provides the PMPI_ symbols.
  tools.link_libraries = {(prefix / "lib" / "libc3mpi.a").string(),
                          (prefix / "lib" / "libc3rt.a").string()};
  append(tools.link_libraries, config::kBoostLinkArgs);
  tools.link_libraries.insert(tools.link_libraries.end(), {"-lstdc++", "-lm"});
  append(tools.link_libraries, config::kMpiLinkArgs);
  tools.has_gold = found_on_path("ld.gold");
  return tools;
}

void Toolchain::require_runtime() const {
  for (const char *library : {"libc3rt.a", "libc3mpi.a"}) {
    const fs::path path = fs::path(library_dir) / library;
    if (!fs::exists(path))
      throw UsageError("c3 runtime library not found: " + path.string() +
                       " (is c3 fully built or installed?)");
  }
}

void Toolchain::require_precompiler() const {
  if (!is_executable(precompiler))
    throw UsageError("c3 precompiler not found: " + precompiler +
                     " (is c3 fully built or installed?)");
}

bool is_system_library(const std::string &flag) {
  static const char *const kSystem[] = {"c", "m", "dl", "pthread", "rt", "util", "crypt", "resolv",
                                        "stdc++", "gcc", "gcc_s", "gfortran", "quadmath", "z",
                                        "mpi", "mpich", "mpl", "opa", "hwloc", "numa"};
  if (flag.rfind("-l", 0) != 0) return false;
  for (const char *name : kSystem)
    if (flag.compare(2, std::string::npos, name) == 0) return true;
  return false;
}

}  // namespace c3cc
