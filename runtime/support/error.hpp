// Errors the runtime reports to the user: one line, prefixed "c3: error: ".
#pragma once
#include <stdexcept>
#include <string>

namespace c3 {

// Any failure with a message fit for the user (file, section, cause).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A checkpoint file that is damaged: bad magic, checksum mismatch, truncation.
class CorruptCheckpoint : public Error {
 public:
  using Error::Error;
};

// A checkpoint written by a different executable (build-id mismatch).
class ForeignCheckpoint : public Error {
 public:
  using Error::Error;
};

// strerror(errno) with a prefix, e.g. sys_error("write " + path).
[[noreturn]] void throw_sys_error(const std::string &what);

}  // namespace c3
