// Cutting stdout/stderr back to their length at the checkpoint: the decision, and the effect on
// real files (fds of temporary files stand in for 1 and 2).
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/error.hpp"
#include "io/stdio_trim.hpp"

using namespace c3;
using stdio_trim::StreamPosition;

namespace {
struct TempFile {
  std::string path;
  TempFile() {
    char pattern[] = "/tmp/c3trim.XXXXXX";
    int fd = mkstemp(pattern);
    REQUIRE(fd >= 0);
    close(fd);
    path = pattern;
  }
  ~TempFile() { unlink(path.c_str()); }
  int open_with(int flags) const { return open(path.c_str(), flags); }
  std::string contents() const {
    std::string s;
    int fd = open(path.c_str(), O_RDONLY);
    char buf[256];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, size_t(n));
    close(fd);
    return s;
  }
};

void write_str(int fd, const std::string &s) {
  REQUIRE(write(fd, s.data(), s.size()) == ssize_t(s.size()));
}
}  // namespace

TEST_CASE("stdio trim: decision") {
  StreamPosition saved;
  saved.regular = true;
  saved.dev = 5;
  saved.ino = 7;
  saved.offset = 100;
  struct stat now {};
  now.st_mode = S_IFREG | 0644;
  now.st_dev = 5;
  now.st_ino = 7;
  now.st_size = 150;
  CHECK(stdio_trim::trim_length(saved, now) == std::optional<uint64_t>(100));
  now.st_size = 100;
  CHECK(stdio_trim::trim_length(saved, now) == std::optional<uint64_t>(100));
  now.st_size = 99;  // shorter than at the checkpoint: not the same output, leave it
  CHECK_FALSE(stdio_trim::trim_length(saved, now));
  now.st_size = 150;
  now.st_ino = 8;  // another file
  CHECK_FALSE(stdio_trim::trim_length(saved, now));
  now.st_ino = 7;
  now.st_mode = S_IFIFO | 0600;  // a pipe now
  CHECK_FALSE(stdio_trim::trim_length(saved, now));
  now.st_mode = S_IFREG | 0644;
  saved.regular = false;  // was a terminal or pipe at the checkpoint
  CHECK_FALSE(stdio_trim::trim_length(saved, now));
}

TEST_CASE("stdio trim: appended file is cut back to the checkpoint length") {
  TempFile f;
  int fd = f.open_with(O_WRONLY | O_APPEND);
  write_str(fd, "before checkpoint\n");
  StreamPosition at_ckpt = stdio_trim::position_of(fd);
  CHECK(at_ckpt.regular);
  CHECK(at_ckpt.offset == 18);
  write_str(fd, "lost after checkpoint\n");
  close(fd);
  // The restarted process opens the same file with >> again.
  int again = f.open_with(O_WRONLY | O_APPEND);
  CHECK(stdio_trim::apply_to_fd(again, at_ckpt) == "");
  write_str(again, "resumed\n");
  close(again);
  CHECK(f.contents() == "before checkpoint\nresumed\n");
}

TEST_CASE("stdio trim: plain (non-append) fd records its position and is repositioned") {
  TempFile f;
  int fd = f.open_with(O_WRONLY);
  write_str(fd, "0123456789");
  lseek(fd, 4, SEEK_SET);
  StreamPosition at = stdio_trim::position_of(fd);
  CHECK(at.offset == 4);
  close(fd);
  int again = f.open_with(O_WRONLY);
  CHECK(stdio_trim::apply_to_fd(again, at) == "");
  CHECK(lseek(again, 0, SEEK_CUR) == 4);
  close(again);
  CHECK(f.contents() == "0123");
}

TEST_CASE("stdio trim: a different file or a truncated one is left alone") {
  TempFile a, b;
  int fa = a.open_with(O_WRONLY | O_APPEND);
  write_str(fa, "abcdef");
  StreamPosition at = stdio_trim::position_of(fa);
  close(fa);
  int fb = b.open_with(O_WRONLY | O_APPEND);
  write_str(fb, "other file, longer than six");
  CHECK(stdio_trim::apply_to_fd(fb, at) == "");
  close(fb);
  CHECK(b.contents() == "other file, longer than six");
  // Same file, reopened with '>' (now empty): nothing to cut.
  int ft = a.open_with(O_WRONLY | O_TRUNC);
  CHECK(stdio_trim::apply_to_fd(ft, at) == "");
  close(ft);
  CHECK(a.contents() == "");
}

TEST_CASE("stdio trim: pipes are not regular files") {
  int p[2];
  REQUIRE(pipe(p) == 0);
  CHECK_FALSE(stdio_trim::position_of(p[1]).regular);
  close(p[0]);
  close(p[1]);
  CHECK_FALSE(stdio_trim::position_of(p[1]).regular);  // closed fd
}

TEST_CASE("stdio trim: section round trip and size check") {
  stdio_trim::Record r;
  r.out = StreamPosition{true, 1, 2, 3};
  r.err = StreamPosition{false, 0, 0, 0};
  r.in = StreamPosition{true, 4, 5, 6};
  std::string bytes = stdio_trim::encode(r);
  SectionView v{uint32_t(SectionKind::Stdio), reinterpret_cast<const uint8_t *>(bytes.data()),
                bytes.size()};
  stdio_trim::Record back = stdio_trim::decode(v, "f");
  CHECK(back.out.regular);
  CHECK(back.out.ino == 2);
  CHECK(back.out.offset == 3);
  CHECK_FALSE(back.err.regular);
  CHECK(back.in.regular);
  CHECK(back.in.dev == 4);
  CHECK(back.in.ino == 5);
  CHECK(back.in.offset == 6);
  v.size -= 1;
  CHECK_THROWS_AS(stdio_trim::decode(v, "f"), CorruptCheckpoint);
  v.size -= 31;  // the two-stream layout of before
  CHECK_THROWS_AS(stdio_trim::decode(v, "f"), CorruptCheckpoint);
  v.size += 32;
  bytes[8 * 8] = 2;  // stdin's "regular" flag must be 0 or 1
  v.data = reinterpret_cast<const uint8_t *>(bytes.data());
  CHECK_THROWS_AS(stdio_trim::decode(v, "f"), CorruptCheckpoint);
}

TEST_CASE("stdio trim: what a restart does with stdin") {
  StreamPosition saved{true, 5, 7, 100};
  struct stat now {};
  now.st_mode = S_IFREG | 0644;
  now.st_dev = 5;
  now.st_ino = 7;
  using stdio_trim::InputAction;
  CHECK(stdio_trim::input_action(saved, now) == InputAction::Seek);
  now.st_ino = 8;  // another file (a copy, say)
  CHECK(stdio_trim::input_action(saved, now) == InputAction::Warn);
  now.st_ino = 7;
  now.st_mode = S_IFIFO | 0600;  // piped in now
  CHECK(stdio_trim::input_action(saved, now) == InputAction::Warn);
  saved.offset = 0;  // nothing read yet: any input is as good
  CHECK(stdio_trim::input_action(saved, now) == InputAction::None);
  now.st_mode = S_IFREG | 0644;
  CHECK(stdio_trim::input_action(saved, now) == InputAction::Seek);
  saved = StreamPosition{};  // a pipe or terminal at the checkpoint
  CHECK(stdio_trim::input_action(saved, now) == InputAction::None);
}

namespace {
// Makes `fd` the process's stdin for the lifetime of the object, as if the process had started
// with it: glibc's fflush of an input stream drops its buffer and its cached file offset.
struct StdinFrom {
  int saved_fd;
  explicit StdinFrom(int fd) : saved_fd(dup(0)) {
    REQUIRE(saved_fd >= 0);
    std::fflush(stdin);
    REQUIRE(dup2(fd, 0) == 0);
    close(fd);
    clearerr(stdin);
  }
  ~StdinFrom() {
    std::fflush(stdin);
    dup2(saved_fd, 0);
    close(saved_fd);
    clearerr(stdin);
  }
};
}  // namespace

TEST_CASE("stdio trim: stdin's position is what the program has read, not what stdio read ahead") {
  TempFile f;
  int w = f.open_with(O_WRONLY);
  write_str(w, "first line\nsecond line\nthird line\n");
  close(w);
  StreamPosition at;
  {
    StdinFrom in(f.open_with(O_RDONLY));
    char line[64];
    REQUIRE(fgets(line, sizeof line, stdin) != nullptr);
    CHECK(lseek(0, 0, SEEK_CUR) == 34);  // stdio read the whole file into its buffer
    at = stdio_trim::input_position();
    CHECK(at.regular);
    CHECK(at.offset == 11);
  }
  {
    // The restarted process opens the same file again, at offset 0.
    StdinFrom in(f.open_with(O_RDONLY));
    CHECK(stdio_trim::apply_to_input(0, at) == "");
    char line[64];
    REQUIRE(fgets(line, sizeof line, stdin) != nullptr);
    CHECK(std::string(line) == "second line\n");
  }
  {
    // Read with read(2), never through stdio: the fd's own offset.
    StdinFrom in(f.open_with(O_RDONLY));
    char five[5];
    REQUIRE(read(0, five, sizeof five) == 5);
    CHECK(stdio_trim::input_position().offset == 5);
    // The program pointed `stdin` at another stream: fd 0's offset still.
    FILE *original = stdin;
    FILE *other = std::fopen("/dev/null", "r");
    REQUIRE(other != nullptr);
    stdin = other;
    CHECK(stdio_trim::input_position().offset == 5);
    stdin = original;
    std::fclose(other);
  }
}

TEST_CASE("stdio trim: stdin from another file or a pipe is left alone, with a warning") {
  TempFile a, b;
  int w = a.open_with(O_WRONLY);
  write_str(w, "0123456789");
  close(w);
  w = b.open_with(O_WRONLY);
  write_str(w, "abcdefghij");
  close(w);
  int fa = a.open_with(O_RDONLY);
  REQUIRE(lseek(fa, 4, SEEK_SET) == 4);
  StreamPosition at = stdio_trim::position_of(fa);
  close(fa);
  int fb = b.open_with(O_RDONLY);
  CHECK(stdio_trim::apply_to_input(fb, at) ==
        "stdin is not the file the checkpoint read from; input is read from its current "
        "position");
  CHECK(lseek(fb, 0, SEEK_CUR) == 0);
  close(fb);
  int p[2];
  REQUIRE(pipe(p) == 0);
  CHECK_FALSE(stdio_trim::apply_to_input(p[0], at).empty());
  close(p[0]);
  close(p[1]);
  // The same file: moved to the position.
  int again = a.open_with(O_RDONLY);
  CHECK(stdio_trim::apply_to_input(again, at) == "");
  CHECK(lseek(again, 0, SEEK_CUR) == 4);
  close(again);
}
