// Output across a restart: at a checkpoint, remember how long stdout/stderr were when they are
// regular files; on restart, cut the same file back to that length, so `app >> out` ends up as
// after an uninterrupted run.
#pragma once
#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

#include "ckpt_file.hpp"

namespace c3::stdio_trim {

struct StreamPosition {
  bool regular = false;  // fd was a regular file at the checkpoint
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint64_t offset = 0;  // write position (the size for O_APPEND)
};

struct Record {
  StreamPosition out;  // fd 1
  StreamPosition err;  // fd 2
};

// Where `fd` stands now (regular == false for pipes, terminals, closed fds).
StreamPosition position_of(int fd);
Record record();  // fds 1 and 2; call after fflush(NULL)

// The length to cut the file open as `now` back to, or nothing when it is not the recorded file
// or is shorter than the recorded offset.
std::optional<uint64_t> trim_length(const StreamPosition &saved, const struct stat &now);

// Applies trim_length to `fd`: ftruncate + lseek. Returns an error text or "" (nothing done is no
// error).
std::string apply_to_fd(int fd, const StreamPosition &saved);
// Both fds; a warning line goes to stderr if cutting fails.
void apply(const Record &saved);

// STDIO section payload. decode throws CorruptCheckpoint mentioning `path`.
std::string encode(const Record &r);
Record decode(const SectionView &section, const std::string &path);

}  // namespace c3::stdio_trim
