// Where c3cc finds clang, the precompiler, the runtime and MPICH.
#pragma once

#include <string>
#include <vector>

namespace c3cc {

struct Toolchain {
  std::string clang;         // C3CC_CLANG, else clang-14 from PATH, else /usr/bin/clang-14
  std::string precompiler;   // <exe dir>/c3-precompile
  std::string include_dir;   // <prefix>/include (holds c3/c3.h)
  std::string library_dir;   // <prefix>/lib (libc3rt.a, libc3mpi.a)
  std::vector<std::string> mpi_include_dirs;
  std::vector<std::string> link_libraries;  // c3 libraries, their dependencies, then MPICH
  // ld.gold is on PATH: c3cc links with it, about twice as fast as ld.bfd on c3's archives.
  bool has_gold = false;

  // Throws UsageError when the runtime libraries are missing (checked only when linking).
  void require_runtime() const;
  void require_precompiler() const;
};

// Locates the pieces relative to this executable (/proc/self/exe), so a build tree and an
// installed prefix work the same way.
Toolchain find_toolchain();

// Whether a -l flag names a system library (C, C++ and Fortran runtimes, math, threads, MPI):
// code that never reaches a checkpoint and never hands the program a function that does.
bool is_system_library(const std::string &flag);

}  // namespace c3cc
