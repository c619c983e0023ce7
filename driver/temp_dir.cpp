#include "temp_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "command_line.hpp"

namespace c3cc {
namespace {

std::string temp_root() {
  const char *tmpdir = std::getenv("TMPDIR");
  return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

constexpr const char *kTemplate = "c3cc-XXXXXX";

}  // namespace

TempDir::TempDir() {
  std::string pattern = temp_root() + "/" + kTemplate;
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr)
    throw UsageError("cannot create a temporary directory from " + pattern + ": " +
                     std::strerror(errno));
  path_ = buffer.data();
  const char *keep = std::getenv("C3CC_KEEP_TEMPS");
  keep_ = keep && std::strcmp(keep, "1") == 0;
}

TempDir::~TempDir() {
  if (keep_) {
    std::fprintf(stderr, "c3cc: keeping temporary files in %s\n", path_.c_str());
    return;
  }
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::placeholder() { return temp_root() + "/" + kTemplate; }

void write_file(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out.flush()) throw UsageError("cannot write " + path);
}

}  // namespace c3cc
