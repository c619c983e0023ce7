#include "io/stdio_trim.hpp"

#include "io/output_commit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "support/error.hpp"

namespace c3::stdio_trim {

StreamPosition position_of(int fd) {
  StreamPosition p;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return p;
  int flags = fcntl(fd, F_GETFL);
  off_t offset = (flags >= 0 && (flags & O_APPEND)) ? st.st_size : lseek(fd, 0, SEEK_CUR);
  if (offset < 0) return p;
  p.regular = true;
  p.dev = uint64_t(st.st_dev);
  p.ino = uint64_t(st.st_ino);
  p.offset = uint64_t(offset);
  return p;
}

StreamPosition input_position() {
  StreamPosition p = position_of(0);
  if (!p.regular) return p;
  // stdio reads ahead: the fd's offset is past what the program has seen. ftell counts back
  // (and counts ungetc). The program may have pointed `stdin` elsewhere or closed it.
  if (stdin && fileno(stdin) == 0) {
    off_t logical = ftello(stdin);
    if (logical >= 0) p.offset = uint64_t(logical);
  }
  return p;
}

Record record() {
  // While stdout is held back (output_commit), fd 1 is a memory file: the real stdout will have
  // grown by the pending bytes once this checkpoint commits and releases them.
  StreamPosition out = position_of(output::real_stdout_fd());
  if (out.regular) out.offset += output::pending_bytes();
  return Record{out, position_of(2), input_position()};
}

std::optional<uint64_t> trim_length(const StreamPosition &saved, const struct stat &now) {
  if (!saved.regular || !S_ISREG(now.st_mode)) return std::nullopt;
  if (uint64_t(now.st_dev) != saved.dev || uint64_t(now.st_ino) != saved.ino) return std::nullopt;
  if (now.st_size < 0 || uint64_t(now.st_size) < saved.offset) return std::nullopt;
  return saved.offset;
}

std::string apply_to_fd(int fd, const StreamPosition &saved) {
  struct stat st;
  if (fstat(fd, &st) != 0) return "";
  std::optional<uint64_t> length = trim_length(saved, st);
  if (!length) return "";
  if (uint64_t(st.st_size) != *length && ftruncate(fd, off_t(*length)) != 0)
    return std::string("cannot cut fd ") + std::to_string(fd) + " back to " +
           std::to_string(*length) + " bytes: " + std::strerror(errno);
  lseek(fd, off_t(*length), SEEK_SET);  // no effect with O_APPEND, which is fine
  return "";
}

InputAction input_action(const StreamPosition &saved, const struct stat &now) {
  if (!saved.regular) return InputAction::None;  // a pipe or terminal: nothing to go back to
  if (S_ISREG(now.st_mode) && uint64_t(now.st_dev) == saved.dev &&
      uint64_t(now.st_ino) == saved.ino)
    return InputAction::Seek;
  return saved.offset > 0 ? InputAction::Warn : InputAction::None;
}

std::string apply_to_input(int fd, const StreamPosition &saved) {
  struct stat st;
  if (fstat(fd, &st) != 0) st.st_mode = 0;  // closed now: not the file
  switch (input_action(saved, st)) {
    case InputAction::None:
      return "";
    case InputAction::Seek:
      if (lseek(fd, off_t(saved.offset), SEEK_SET) < 0)
        return std::string("cannot move stdin to offset ") + std::to_string(saved.offset) + ": " +
               std::strerror(errno) + "; input is read from its current position";
      return "";
    case InputAction::Warn:
      return "stdin is not the file the checkpoint read from; input is read from its current "
             "position";
  }
  return "";
}

bool stdout_cuttable(const Record &saved) {
  return saved.out.regular &&
         !(saved.err.regular && saved.out.dev == saved.err.dev && saved.out.ino == saved.err.ino);
}

void apply(const Record &saved) {
  // A file stdout and stderr share (`> log 2>&1`, a batch job's log) is never cut: it holds
  // c3's own messages and possibly other programs' lines since the checkpoint.
  if (stdout_cuttable(saved)) {
    for (const std::string &e : {apply_to_fd(output::real_stdout_fd(), saved.out),
                                 apply_to_fd(2, saved.err)})
      if (!e.empty()) std::fprintf(stderr, "c3: warning: %s; output may be repeated\n", e.c_str());
  }
  std::string e0 = apply_to_input(0, saved.in);
  if (!e0.empty()) std::fprintf(stderr, "c3: warning: %s\n", e0.c_str());
}

namespace {
constexpr size_t kFields = 12;  // per stream: regular, dev, ino, offset; stdout, stderr, stdin

void put(uint64_t *out, const StreamPosition &p) {
  out[0] = p.regular;
  out[1] = p.dev;
  out[2] = p.ino;
  out[3] = p.offset;
}
StreamPosition get(const uint64_t *in) {
  StreamPosition p;
  p.regular = in[0] != 0;
  p.dev = in[1];
  p.ino = in[2];
  p.offset = in[3];
  return p;
}
}  // namespace

std::string encode(const Record &r) {
  uint64_t fields[kFields];
  put(fields, r.out);
  put(fields + 4, r.err);
  put(fields + 8, r.in);
  return std::string(reinterpret_cast<const char *>(fields), sizeof fields);
}

Record decode(const SectionView &section, const std::string &path) {
  uint64_t fields[kFields];
  if (section.size != sizeof fields)
    throw CorruptCheckpoint(path + ": section STDIO: " + std::to_string(section.size) +
                            " bytes, expected " + std::to_string(sizeof fields));
  std::memcpy(fields, section.data, sizeof fields);
  for (size_t stream = 0; stream < kFields; stream += 4)
    if (fields[stream] > 1)
      throw CorruptCheckpoint(path + ": section STDIO: stream " + std::to_string(stream / 4) +
                              " has flag " + std::to_string(fields[stream]) + ", expected 0 or 1");
  return Record{get(fields), get(fields + 4), get(fields + 8)};
}

}  // namespace c3::stdio_trim
