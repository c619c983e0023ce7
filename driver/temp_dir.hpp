// c3cc's private directory for intermediate files.
#pragma once

#include <string>

namespace c3cc {

// A fresh directory from mkdtemp under $TMPDIR (or /tmp), removed with its contents on
// destruction unless C3CC_KEEP_TEMPS=1, in which case its path is printed instead.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }

  // Path of the directory TempDir would create, for -show, which creates nothing.
  static std::string placeholder();

 private:
  std::string path_;
  bool keep_ = false;
};

// Writes bytes to a file of c3cc's (its temporary directory); throws UsageError if it cannot.
void write_file(const std::string &path, const std::string &bytes);

}  // namespace c3cc
