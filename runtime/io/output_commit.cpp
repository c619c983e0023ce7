#include "io/output_commit.hpp"
#include "support/own_descriptors.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <string>

namespace c3::output {
namespace {

int g_real = 1;       // the real stdout
int g_memory = -1;    // the memory file that is fd 1 while capturing
bool g_broken = false;  // the real stdout refused writes (closed pipe): drop output from then on
uint64_t g_released = 0;  // bytes released over the lineage (not touched by signal handlers)
volatile uint64_t g_discard = 0;  // output to drop: an earlier run of this lineage showed it

// Writes [at, end) of the memory file to the real stdout. Async-signal-safe.
void copy_out(off_t at, off_t end) {
  uint64_t drop = g_discard < uint64_t(end - at) ? g_discard : uint64_t(end - at);
  at += off_t(drop);
  g_discard = g_discard - drop;
  char buf[1 << 16];
  while (at < end && !g_broken) {
    ssize_t n = pread(g_memory, buf, sizeof buf < size_t(end - at) ? sizeof buf : size_t(end - at), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = write(g_real, buf + done, size_t(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        g_broken = true;
        break;
      }
      done += w;
    }
    at += n;
  }
}

// Async-signal-safe: only read/write/lseek/ftruncate.
void release_raw() {
  if (g_memory < 0) return;
  off_t end = lseek(g_memory, 0, SEEK_CUR);
  if (end <= 0) return;
  copy_out(0, end);
  // fd 1 shares the memory file's offset: start over at 0.
  if (ftruncate(g_memory, 0) == 0) lseek(g_memory, 0, SEEK_SET);
}

bool (*g_failure_elsewhere)() = nullptr;  // see hold_on_crash_when

// Whether the process ends because another one failed; then says so on stderr.
// Async-signal-safe.
bool ends_for_failure_elsewhere(const char *how, size_t how_length) {
  if (!g_failure_elsewhere || !g_failure_elsewhere()) return false;
  if (g_memory < 0 || lseek(g_memory, 0, SEEK_CUR) <= 0) return true;  // nothing held back
  static const char rest[] =
      " inside the MPI library (did another rank fail?); output after the newest committed "
      "checkpoint stays held back for the restart\n";
  ssize_t ignored = write(2, how, how_length);
  ignored = write(2, rest, sizeof rest - 1);
  (void)ignored;
  return true;
}

void release_at_exit() {
  static const char how[] = "c3: exiting";
  std::fflush(stdout);
  if (!ends_for_failure_elsewhere(how, sizeof how - 1)) release();
}

// A crash is a program error the user wants to see output for; external termination (SIGTERM,
// SIGINT, SIGKILL) is a failure the restart recovers from, so its output stays held back. So is
// a crash the failure of another process caused (g_failure_elsewhere): the restart prints it.
void release_on_crash(int sig) {
  static const char how[] = "c3: crashed";
  if (!ends_for_failure_elsewhere(how, sizeof how - 1)) release_raw();
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void begin(Mode mode) {
  if (g_memory >= 0 || mode == Mode::Immediate) return;
  if (mode == Mode::Auto && isatty(1)) return;
  struct stat st;
  if (fstat(1, &st) != 0) return;  // no stdout at all: nothing to hold back
  int real = move_to_own_range(fcntl(1, F_DUPFD_CLOEXEC, 10));
  int memory = move_to_own_range(memfd_create("c3-stdout", MFD_CLOEXEC));
  if (real < 0 || memory < 0 || dup2(memory, 1) < 0) {
    if (real >= 0) close(real);
    if (memory >= 0) close(memory);
    std::fprintf(stderr, "c3: warning: cannot hold back stdout until checkpoints commit; "
                         "output after a checkpoint may be printed twice after a restart\n");
    return;
  }
  g_real = real;
  g_memory = memory;
  std::atexit(release_at_exit);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) signal(sig, release_on_crash);
  }
}

void hold_on_crash_when(bool (*failure_elsewhere)()) { g_failure_elsewhere = failure_elsewhere; }

bool failure_elsewhere() { return g_failure_elsewhere && g_failure_elsewhere(); }

bool capturing() { return g_memory >= 0; }
int real_stdout_fd() { return g_real; }

uint64_t pending_bytes() {
  if (g_memory < 0) return 0;
  off_t at = lseek(g_memory, 0, SEEK_CUR);
  return at > 0 ? uint64_t(at) : 0;
}

namespace {
// Writes the first `bytes` held bytes (bytes <= held) and moves the held rest to the front.
void show(uint64_t bytes, uint64_t held, const ShownRecord &record) {
  const uint64_t dropped = g_discard < bytes ? g_discard : bytes;
  // Told only around bytes really written: only those can be half-shown when a kill comes.
  const bool writes = record && bytes > dropped;
  if (writes) record(g_released + dropped, g_released + bytes);
  copy_out(0, off_t(bytes));
  g_released += bytes;
  if (writes) record(shown_bytes(), shown_bytes());
  if (bytes == held) {
    // fd 1 shares the memory file's offset: start over at 0.
    if (ftruncate(g_memory, 0) == 0) lseek(g_memory, 0, SEEK_SET);
    return;
  }
  std::string rest(held - bytes, '\0');
  size_t got = 0;
  while (got < rest.size()) {
    ssize_t n = pread(g_memory, &rest[got], rest.size() - got, off_t(bytes + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
  }
  if (ftruncate(g_memory, 0) != 0) return;
  // fd 1 shares the offset, so it ends right after the rest.
  lseek(g_memory, 0, SEEK_SET);
  for (size_t done = 0; done < got;) {
    ssize_t w = write(g_memory, rest.data() + done, got - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += size_t(w);
  }
}
}  // namespace

void release(const ShownRecord &record) {
  if (g_memory < 0) return;
  std::fflush(stdout);
  const uint64_t held = pending_bytes();
  if (held > 0) show(held, held, record);
}

void release_prefix(uint64_t bytes, const ShownRecord &record) {
  if (g_memory < 0) return;
  std::fflush(stdout);
  const uint64_t held = pending_bytes();
  if (bytes > held) bytes = held;
  if (bytes > 0) show(bytes, held, record);
}

uint64_t released_bytes() { return g_released; }
void discard_next(uint64_t bytes) { g_discard = bytes; }
void set_released_bytes(uint64_t bytes) { g_released = bytes; }
uint64_t shown_bytes() { return g_released + g_discard; }

std::string held_back() {
  std::string bytes;
  if (g_memory < 0) return bytes;
  std::fflush(stdout);
  bytes.resize(pending_bytes());
  size_t at = 0;
  while (at < bytes.size()) {
    ssize_t n = pread(g_memory, &bytes[at], bytes.size() - at, off_t(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    at += size_t(n);
  }
  bytes.resize(at);
  return bytes;
}

namespace {
std::string released_marker(const std::string &checkpoint_path) {
  return checkpoint_path + "/OUTPUT-RELEASED";
}
std::string showing_marker(const std::string &checkpoint_path) {
  return checkpoint_path + "/OUTPUT-SHOWING";
}
void create(const std::string &path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
}
}  // namespace

// Only a process kill must be survived here (the output went to the same kernel), so the markers
// need no fsync.
void mark_showing(const std::string &checkpoint_path) { create(showing_marker(checkpoint_path)); }
void mark_released(const std::string &checkpoint_path) { create(released_marker(checkpoint_path)); }

Shown held_output_shown(const std::string &checkpoint_path) {
  if (access(released_marker(checkpoint_path).c_str(), F_OK) == 0) return Shown::Yes;
  if (access(showing_marker(checkpoint_path).c_str(), F_OK) == 0) return Shown::Maybe;
  return Shown::No;
}

void reemit(const std::string &bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t w = write(1, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    done += size_t(w);
  }
}

}  // namespace c3::output
