#include "io/open_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "c3/c3_abi.h"
#include "store/archived_section.hpp"
#include "support/error.hpp"

// The slots whose addresses the program holds as FILE *. In the executable's .bss: the same
// address in every run of the same binary.
extern "C" {
struct __c3_stream_slot __c3_streams[c3::files::kStreamSlots];
const char *__c3_io_site;
}

namespace c3::files {
namespace {

std::map<uint32_t, Handle> g_streams;  // by slot
std::map<int, Handle> g_descriptors;   // by descriptor number
std::vector<std::string> g_written;    // paths of files written and closed, oldest first
std::string g_journal;                 // where opens for writing after the checkpoint are noted

bool mode_writes(const std::string &mode) {
  return mode.find_first_of("wa+") != std::string::npos;
}

// The file behind `fd` as the kernel names it, "" when it has none (a pipe, a socket).
std::string path_of(int fd) {
  char link[64], target[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return {};
  target[n] = '\0';
  return target[0] == '/' ? std::string(target) : std::string();
}

// Notes the length of the file `fd` writes to before the program writes to it, when the open
// kept its contents (see journal_to).
void journal_open(int fd, bool writes, bool truncated) {
  if (g_journal.empty() || !writes || truncated) return;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::string path = path_of(fd);
  if (path.empty() || path.find('\n') != std::string::npos) return;
  std::string line = std::to_string(st.st_size) + " " + path + "\n";
  int j = ::open(g_journal.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (j < 0) return;
  if (::write(j, line.data(), line.size()) != ssize_t(line.size())) {
    // A short journal line is ignored when read; the checkpoint still knows every file opened
    // before it.
  }
  ::close(j);
}

// Devices that hold no state: reopened by path, nothing to position.
bool stateless_device(const std::string &path) {
  static const char *const kDevices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                         "/dev/urandom"};
  for (const char *d : kDevices)
    if (path == d) return true;
  return false;
}

// A handle's description in messages: "'out/log.txt' (fopen at prog.c:12)".
std::string describe(const Handle &h) {
  std::string what = h.path.empty() ? "descriptor " + std::to_string(h.fd) : "'" + h.path + "'";
  std::string origin = h.call + "()";
  if (!h.where.empty()) origin += " at " + h.where;
  return what + " (opened by " + origin + ")";
}

// Fills in path, refusal, size and position of `h` from its descriptor as it is now.
void observe(Handle &h, int fd, FILE *stream) {
  h.fd = fd;
  if (h.memory) {
    h.refusal = "a memory stream";
    return;
  }
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    h.refusal = "no longer open";
    return;
  }
  h.path = path_of(fd);
  h.refusal.clear();
  if (S_ISREG(st.st_mode)) {
    if (st.st_nlink == 0 || h.path.empty()) h.refusal = "a file without a name (deleted, or tmpfile())";
  } else if (S_ISCHR(st.st_mode)) {
    if (!stateless_device(h.path)) h.refusal = "a device";
  } else if (S_ISFIFO(st.st_mode)) {
    h.refusal = "a pipe";
  } else if (S_ISSOCK(st.st_mode)) {
    h.refusal = "a socket";
  } else if (!S_ISDIR(st.st_mode)) {
    h.refusal = "a device";
  }
  h.size = S_ISREG(st.st_mode) ? uint64_t(st.st_size) : 0;
  h.position = 0;
  h.eof = false;
  if (S_ISREG(st.st_mode)) {
    off_t at = stream ? ftello(stream) : ::lseek(fd, 0, SEEK_CUR);
    h.position = at < 0 ? 0 : uint64_t(at);
    h.eof = stream && feof(stream);
  }
}

void remember_written(const Handle &h) {
  if (!h.writes() || h.memory) return;
  std::string path = h.path;
  if (path.empty()) return;
  for (auto it = g_written.begin(); it != g_written.end(); ++it)
    if (*it == path) {
      g_written.erase(it);
      break;
    }
  if (g_written.size() >= kMaxWrittenFiles) g_written.erase(g_written.begin());
  g_written.push_back(path);
}

uint32_t slot_index(const void *p) {
  return uint32_t((reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(__c3_streams)) /
                  sizeof(__c3_stream_slot));
}

// Open flags that reopen a stream of this fopen mode without truncating or creating it.
int flags_for_mode(const std::string &mode) {
  bool plus = mode.find('+') != std::string::npos;
  int flags = plus ? O_RDWR : (mode[0] == 'r' ? O_RDONLY : O_WRONLY);
  if (mode[0] == 'a') flags |= O_APPEND;
  if (mode.find('e') != std::string::npos) flags |= O_CLOEXEC;
  return flags;
}

// How a restart opens the handle's file again: as it was opened, never truncating or creating it.
int reopen_flags(const Handle &h) {
  return (h.stream ? flags_for_mode(h.mode) : h.flags) & ~(O_CREAT | O_EXCL | O_TRUNC);
}

// fdopen's mode for a reopened stream (fdopen never truncates; 'x' means nothing to it).
std::string fdopen_mode(const std::string &mode) {
  std::string m;
  for (char c : mode)
    if (c != 'x') m += c;
  return m;
}

bool descriptor_free(int fd) { return ::fcntl(fd, F_GETFD) == -1 && errno == EBADF; }

}  // namespace

bool Handle::writes() const {
  return stream ? mode_writes(mode) : (flags & O_ACCMODE) != O_RDONLY;
}

std::string journal_path(const std::string &checkpoint_path, uint32_t rank) {
  return checkpoint_path + "/opened.rank" + std::to_string(rank);
}

void journal_to(const std::string &path) { g_journal = path; }

std::string take_site() {
  std::string site = __c3_io_site ? __c3_io_site : "";
  __c3_io_site = nullptr;
  return site;
}

void *add_stream(void *real, const char *call, const char *mode, bool memory) {
  for (uint32_t i = 3; i < kStreamSlots; ++i) {
    if (__c3_streams[i].stream) continue;
    Handle h;
    h.stream = true;
    h.slot = i;
    h.call = call;
    h.where = take_site();
    h.mode = mode ? mode : "r";
    h.memory = memory;
    if (!memory) {
      int fd = fileno(static_cast<FILE *>(real));
      h.fd = fd;
      h.path = path_of(fd);
      g_descriptors.erase(fd);  // fdopen: the stream owns the descriptor now
      journal_open(fd, mode_writes(h.mode), h.mode[0] == 'w');
    }
    g_streams[i] = h;
    __c3_streams[i].stream = real;
    return &__c3_streams[i];
  }
  take_site();
  errno = EMFILE;
  return nullptr;
}

bool is_slot(const void *p) {
  return reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(__c3_streams) <
         sizeof __c3_streams;
}

bool is_opened_slot(const void *p) { return is_slot(p) && slot_index(p) >= 3; }

void *real_stream(void *p) {
  if (!is_slot(p)) return p;
  switch (slot_index(p)) {
    case 0: return stdin;
    case 1: return stdout;
    case 2: return stderr;
    default: return __c3_streams[slot_index(p)].stream;
  }
}

void stream_closed(void *p) {
  uint32_t i = slot_index(p);
  auto it = g_streams.find(i);
  if (it != g_streams.end()) {
    remember_written(it->second);
    g_streams.erase(it);
  }
  __c3_streams[i].stream = nullptr;
}

void stream_reopened(void *p, void *real, const char *mode) {
  uint32_t i = slot_index(p);
  auto it = g_streams.find(i);
  if (it == g_streams.end()) return;
  remember_written(it->second);
  Handle &h = it->second;
  h.call = "freopen";
  h.where = take_site();
  if (mode) h.mode = mode;
  h.fd = fileno(static_cast<FILE *>(real));
  h.path = path_of(h.fd);
  journal_open(h.fd, mode_writes(h.mode), h.mode[0] == 'w');
  __c3_streams[i].stream = real;
}

void add_descriptor(int fd, const char *call, int flags) {
  Handle h;
  h.fd = fd;
  h.call = call;
  h.where = take_site();
  h.flags = flags;
  h.path = path_of(fd);
  journal_open(fd, h.writes(), (flags & O_TRUNC) != 0);
  g_descriptors[fd] = h;
}

void descriptor_closed(int fd) {
  auto it = g_descriptors.find(fd);
  if (it == g_descriptors.end()) return;
  remember_written(it->second);
  g_descriptors.erase(it);
}

void descriptor_duplicated(int from, int to, const char *call) {
  descriptor_closed(to);  // dup2 closes what `to` was
  auto it = g_descriptors.find(from);
  std::string site = take_site();
  if (it == g_descriptors.end()) return;  // not a file c3 carries (stdout, MPI's own)
  Handle h = it->second;
  h.fd = to;
  h.call = call;
  h.where = site;
  g_descriptors[to] = h;
}

Record record() {
  Record r;
  for (auto &[slot, h] : g_streams) {
    FILE *real = static_cast<FILE *>(__c3_streams[slot].stream);
    observe(h, h.memory ? -1 : fileno(real), real);
    r.open.push_back(h);
  }
  for (auto &[fd, h] : g_descriptors) {
    observe(h, fd, nullptr);
    r.open.push_back(h);
  }
  for (const std::string &path : g_written) {
    WrittenFile w;
    w.path = path;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      w.exists = true;
      w.size = uint64_t(st.st_size);
    }
    r.written.push_back(w);
  }
  return r;
}

std::string refusal(const Record &now, bool callbacks_registered) {
  if (callbacks_registered) return {};
  for (const Handle &h : now.open) {
    if (h.refusal.empty()) continue;
    std::string handle = h.stream ? "stream" : "descriptor " + std::to_string(h.fd);
    return describe(h) + " is " + h.refusal + ", and c3 carries only files across a restart: " +
           "close the " + handle +
           " before the checkpoint, or register a c3_on_restart callback that opens it again";
  }
  return {};
}

namespace {
constexpr char kMagic[8] = {'C', '3', 'F', 'I', 'L', 'E', 'S', '1'};
}

std::string encode(const Record &r) { return encode_archived(kMagic, r); }

Record decode(const SectionView &section, const std::string &path) {
  Record r = decode_archived<Record>(section.data, section.size, kMagic,
                                     path + ": section FILES", "a c3 file table");
  for (const Handle &h : r.open)
    if ((h.stream && (h.slot < 3 || h.slot >= kStreamSlots || h.mode.empty())) ||
        (!h.stream && h.fd < 0))
      throw CorruptCheckpoint(path + ": section FILES: a handle out of range");
  return r;
}

namespace {
// The length to cut each journaled file back to: its first entry, in checkpoint order.
std::map<std::string, uint64_t> journaled_lengths(const std::vector<std::string> &journals) {
  std::map<std::string, uint64_t> lengths;
  for (const std::string &journal : journals) {
    FILE *f = std::fopen(journal.c_str(), "re");
    if (!f) continue;
    char line[4200];
    while (std::fgets(line, sizeof line, f)) {
      char *end = nullptr;
      errno = 0;
      unsigned long long size = std::strtoull(line, &end, 10);
      size_t n = std::strlen(line);
      if (errno || end == line || *end != ' ' || n < 2 || line[n - 1] != '\n' || end[1] != '/')
        continue;  // cut short by a kill
      std::string path(end + 1, line + n - 1);
      lengths.emplace(path, size);
    }
    std::fclose(f);
  }
  return lengths;
}
}  // namespace

void restore(const Record &saved, const std::vector<std::string> &journals,
             std::vector<std::string> &warnings) {
  // Phase 1: open everything at descriptors above every number a handle goes back to, and check
  // those numbers are free. Nothing is changed yet.
  std::vector<const Handle *> carried;
  int above = 3;
  std::set<int> targets;
  for (const Handle &h : saved.open) {
    if (!h.refusal.empty()) continue;  // a c3_on_restart callback opens it again
    carried.push_back(&h);
    above = std::max(above, h.fd + 1);
    if (!h.stream) {
      if (!targets.insert(h.fd).second || !descriptor_free(h.fd))
        throw Error("cannot restore " + describe(h) + " as descriptor " + std::to_string(h.fd) +
                    ": the restarted process uses that number already");
    }
  }
  std::vector<int> opened;
  auto close_opened = [&] {
    for (int fd : opened) ::close(fd);
  };
  for (const Handle *h : carried) {
    int fd = ::open(h->path.c_str(), reopen_flags(*h));
    if (fd < 0) {
      int err = errno;
      close_opened();
      throw Error("cannot reopen " + describe(*h) + ": " + std::strerror(err) +
                  "; put the file back, or run the program afresh (without C3_RESTART)");
    }
    int high = ::fcntl(fd, F_DUPFD_CLOEXEC, above);
    ::close(fd);
    if (high < 0) {
      int err = errno;
      close_opened();
      throw Error("cannot reopen " + describe(*h) + ": " + std::strerror(err));
    }
    opened.push_back(high);
    struct stat st;
    if (::fstat(high, &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) < h->size)
      warnings.push_back(describe(*h) + " is shorter (" + std::to_string(st.st_size) +
                         " bytes) than at the checkpoint (" + std::to_string(h->size) +
                         " bytes): something else changed it");
  }

  // Phase 2: cut written files back, put each handle at its number and slot, position it.
  for (const WrittenFile &w : saved.written) {
    struct stat st;
    if (w.exists && ::stat(w.path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        uint64_t(st.st_size) > w.size && ::truncate(w.path.c_str(), off_t(w.size)) != 0)
      warnings.push_back("cannot cut '" + w.path + "' back to its length at the checkpoint: " +
                         std::strerror(errno));
  }
  std::map<std::string, uint64_t> later = journaled_lengths(journals);
  for (const Handle &h : saved.open) later.erase(h.path);
  for (const WrittenFile &w : saved.written) later.erase(w.path);
  for (const auto &[path, size] : later) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) > size &&
        ::truncate(path.c_str(), off_t(size)) != 0)
      warnings.push_back("cannot cut '" + path + "' back to its length before the checkpoint: " +
                         std::strerror(errno));
  }
  g_streams.clear();
  g_descriptors.clear();
  g_written.clear();
  for (const WrittenFile &w : saved.written) g_written.push_back(w.path);
  for (size_t i = 0; i < carried.size(); ++i) {
    const Handle &h = *carried[i];
    int fd = opened[i];
    struct stat st;
    bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular && h.writes() && uint64_t(st.st_size) > h.size &&
        ::ftruncate(fd, off_t(h.size)) != 0)
      warnings.push_back("cannot cut " + describe(h) + " back to its length at the checkpoint: " +
                         std::strerror(errno));
    // A descriptor goes back to its number; a stream's too when it is free (fileno agrees).
    int target = (!h.stream || descriptor_free(h.fd)) ? h.fd : -1;
    if (target >= 0) {
      if (::dup3(fd, target, reopen_flags(h) & O_CLOEXEC) < 0) target = fd;
      else ::close(fd);
    } else {
      target = ::fcntl(fd, F_DUPFD, 3);
      ::close(fd);
    }
    if (regular) ::lseek(target, off_t(h.position), SEEK_SET);
    Handle restored = h;
    restored.fd = target;
    if (h.stream) {
      FILE *real = ::fdopen(target, fdopen_mode(h.mode).c_str());
      if (!real)
        throw Error("cannot reopen " + describe(h) + " as a stream: " + std::strerror(errno));
      if (regular) {
        fseeko(real, off_t(h.position), SEEK_SET);
        if (h.eof) {
          int c = std::getc(real);  // sets the end-of-file indicator again
          if (c != EOF) std::ungetc(c, real);
        }
      }
      __c3_streams[h.slot].stream = real;
      g_streams[h.slot] = restored;
    } else {
      g_descriptors[target] = restored;
    }
  }
}

}  // namespace c3::files
