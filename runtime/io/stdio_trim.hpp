// The standard streams across a restart: at a checkpoint, remember how long stdout/stderr were
// and where stdin was read up to, when they are regular files; on restart, cut the same output
// file back to that length, so `app >> out` ends up as after an uninterrupted run, and go on
// reading the same input file (`app < in`) where the checkpoint had got to.
#pragma once
#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

#include "store/ckpt_file.hpp"

namespace c3::stdio_trim {

struct StreamPosition {
  bool regular = false;  // fd was a regular file at the checkpoint
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint64_t offset = 0;  // write position (the size for O_APPEND); for stdin the read position
};

struct Record {
  StreamPosition out;  // fd 1
  StreamPosition err;  // fd 2
  StreamPosition in;   // fd 0
};

// Where `fd` stands now (regular == false for pipes, terminals, closed fds).
StreamPosition position_of(int fd);
// Where the program has read stdin up to: ftell(stdin), which does not count what stdio has
// read ahead into its buffer, or fd 0's offset when stdin is not fd 0's stream.
StreamPosition input_position();
Record record();  // fds 1, 2 and 0; call after fflush(NULL)

// The length to cut the file open as `now` back to, or nothing when it is not the recorded file
// or is shorter than the recorded offset.
std::optional<uint64_t> trim_length(const StreamPosition &saved, const struct stat &now);

// stdout and stderr are cut back at a restart only when they are not one shared file.
bool stdout_cuttable(const Record &saved);

// Applies trim_length to `fd`: ftruncate + lseek. Returns an error text or "" (nothing done is no
// error).
std::string apply_to_fd(int fd, const StreamPosition &saved);

// What a restart does with an input fd open as `now`: seek to the saved position when it is the
// recorded file, warn when the checkpoint had read part of a file and this is not that file.
enum class InputAction { None, Seek, Warn };
InputAction input_action(const StreamPosition &saved, const struct stat &now);
// Applies input_action to `fd`. Returns a warning text or "".
std::string apply_to_input(int fd, const StreamPosition &saved);

// All three fds (before the program reads stdin); a warning line goes to stderr if cutting
// fails or stdin is not the file the checkpoint read from.
void apply(const Record &saved);

// STDIO section payload. decode throws CorruptCheckpoint mentioning `path`.
std::string encode(const Record &r);
Record decode(const SectionView &section, const std::string &path);

}  // namespace c3::stdio_trim
