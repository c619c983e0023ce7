// The checkpoint directory: DIR/ckpt.NNNNNN/{rank.R.c3, COMMITTED}.
#include "store/ckpt_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "support/error.hpp"

namespace c3 {
namespace {

constexpr const char *kCommittedName = "COMMITTED";
constexpr const char *kFolderPrefix = "ckpt.";
constexpr size_t kNumberDigits = 6;

// Parses a canonical decimal number (no sign, no leading zeros beyond `min_digits`).
bool parse_number(const std::string &text, size_t min_digits, uint64_t *out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = uint64_t(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  // Only the exact name we would write counts, so "ckpt.3" and "ckpt.0000003" are foreign.
  char canonical[32];
  std::snprintf(canonical, sizeof canonical, "%0*" PRIu64, int(min_digits), value);
  if (text != canonical) return false;
  *out = value;
  return true;
}

bool parse_folder_name(const std::string &name, uint64_t *number) {
  const size_t prefix = std::strlen(kFolderPrefix);
  if (name.compare(0, prefix, kFolderPrefix) != 0) return false;
  return parse_number(name.substr(prefix), kNumberDigits, number);
}

bool parse_rank_file_name(const std::string &name, uint32_t *rank) {
  static const std::string prefix = "rank.", suffix = ".c3";
  if (name.size() <= prefix.size() + suffix.size()) return false;
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  uint64_t value = 0;
  if (!parse_number(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()), 1,
                    &value) ||
      value > UINT32_MAX)
    return false;
  *rank = uint32_t(value);
  return true;
}

std::string read_small_file(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || text.size() > 4096) break;
    text.append(buffer, size_t(n));
  }
  ::close(fd);
  return text;
}

// The value of "key <number>" on a line of the COMMITTED marker.
bool marker_field(const std::string &text, const std::string &key, uint64_t *value) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) return false;  // an unterminated line is a torn marker
    const std::string line = text.substr(pos, eol - pos);
    if (line.size() > key.size() + 1 && line.compare(0, key.size(), key) == 0 &&
        line[key.size()] == ' ')
      return parse_number(line.substr(key.size() + 1), 1, value);
    pos = eol + 1;
  }
  return false;
}

void fsync_path(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_sys_error("open " + path);
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    throw_sys_error("fsync " + path);
  }
  ::close(fd);
}

void write_all(int fd, const std::string &text, const std::string &path) {
  const char *p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      throw_sys_error("write " + path);
    }
    p += n;
    left -= size_t(n);
  }
}

}  // namespace

CheckpointDir::CheckpointDir(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = ".";
}

void CheckpointDir::ensure_exists() const {
  // Create each missing component, like mkdir -p, with mode 0700.
  for (size_t pos = 1; pos <= root_.size(); ++pos) {
    if (pos != root_.size() && root_[pos] != '/') continue;
    const std::string prefix = root_.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      throw_sys_error("cannot create checkpoint directory " + prefix);
  }
  struct stat st {};
  if (::stat(root_.c_str(), &st) != 0) throw_sys_error("checkpoint directory " + root_);
  if (!S_ISDIR(st.st_mode))
    throw Error("checkpoint directory " + root_ + " exists and is not a directory");
  if (::access(root_.c_str(), W_OK | X_OK) != 0)
    throw_sys_error("checkpoint directory " + root_ + " is not writable");
}

std::string CheckpointDir::checkpoint_path(uint64_t number) const {
  char name[32];
  std::snprintf(name, sizeof name, "ckpt.%06llu", static_cast<unsigned long long>(number));
  return root_ + "/" + name;
}

std::string CheckpointDir::rank_file(uint64_t number, uint32_t rank) const {
  return checkpoint_path(number) + "/rank." + std::to_string(rank) + ".c3";
}

void CheckpointDir::prepare(uint64_t number, bool shared) const {
  const std::string path = checkpoint_path(number);
  struct stat st {};
  if (!shared && ::lstat(path.c_str(), &st) == 0) remove(number);
  if (::mkdir(path.c_str(), 0700) != 0 && !(shared && errno == EEXIST))
    throw_sys_error("cannot create " + path);
}

void CheckpointDir::mark_committed(uint64_t number, uint32_t nranks) const {
  const std::string folder = checkpoint_path(number);
  const std::string marker = folder + "/" + kCommittedName;
  const std::string tmp = marker + ".tmp";
  const std::string text = "c3 checkpoint\nnumber " + std::to_string(number) + "\nnranks " +
                           std::to_string(nranks) + "\ntime " + std::to_string(::time(nullptr)) +
                           "\n";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw_sys_error("create " + tmp);
  try {
    write_all(fd, text, tmp);
    if (::fsync(fd) != 0) throw_sys_error("fsync " + tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    throw_sys_error("close " + tmp);
  }
  if (::rename(tmp.c_str(), marker.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    throw_sys_error("rename " + tmp + " to " + marker);
  }
  fsync_path(folder);
  fsync_path(root_);  // makes the ckpt.N entry itself durable
}

namespace {
// rank.R.log: an MPI rank's protocol log in a checkpoint folder.
bool is_rank_log_name(const char *name) {
  unsigned rank = 0;
  int end = 0;
  return std::sscanf(name, "rank.%u.log%n", &rank, &end) == 1 && name[end] == '\0';
}
}  // namespace

std::string CheckpointDir::why_nothing_committed() const {
  struct stat st {};
  if (::stat(root_.c_str(), &st) != 0)
    return "the checkpoint directory " + root_ + " does not exist (set C3_CKPT_DIR to the " +
           "directory the first run wrote its checkpoints to)";
  if (!S_ISDIR(st.st_mode)) return root_ + " is not a directory";
  const std::vector<CheckpointEntry> entries = list();
  if (entries.empty()) return root_ + " holds no checkpoint";
  size_t committed = 0;
  for (const CheckpointEntry &e : entries) committed += e.committed ? 1 : 0;
  if (committed == 0)
    return root_ + " holds " + std::to_string(entries.size()) +
           " checkpoint(s), none committed (their writing did not finish)";
  return "no checkpoint in " + root_ + " is usable";
}

std::vector<CheckpointEntry> CheckpointDir::list() const {
  std::vector<CheckpointEntry> entries;
  std::unique_ptr<DIR, int (*)(DIR *)> root_dir(::opendir(root_.c_str()), ::closedir);
  if (!root_dir) {
    if (errno == ENOENT) return entries;
    throw_sys_error("cannot read checkpoint directory " + root_);
  }
  while (const dirent *de = ::readdir(root_dir.get())) {
    CheckpointEntry entry;
    if (!parse_folder_name(de->d_name, &entry.number)) continue;
    entry.path = root_ + "/" + de->d_name;
    struct stat st {};
    if (::stat(entry.path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    entry.mtime_s = int64_t(st.st_mtim.tv_sec);

    uint64_t nranks = 0;
    const std::string marker = read_small_file(entry.path + "/" + kCommittedName);
    if (marker_field(marker, "nranks", &nranks) && nranks > 0 && nranks <= UINT32_MAX) {
      entry.committed = true;
      entry.nranks_expected = uint32_t(nranks);
    }
    // An unreadable folder is listed with what could be seen (nothing), not treated as fatal.
    std::unique_ptr<DIR, int (*)(DIR *)> folder(::opendir(entry.path.c_str()), ::closedir);
    size_t logs = 0;
    while (folder) {
      const dirent *file = ::readdir(folder.get());
      if (file == nullptr) break;
      uint32_t rank = 0;
      if (is_rank_log_name(file->d_name)) ++logs;
      if (!parse_rank_file_name(file->d_name, &rank)) continue;
      struct stat fst {};
      const std::string file_path = entry.path + "/" + file->d_name;
      if (::stat(file_path.c_str(), &fst) != 0 || !S_ISREG(fst.st_mode)) continue;
      entry.ranks.push_back(rank);
      entry.bytes += uint64_t(fst.st_size);
    }
    std::sort(entry.ranks.begin(), entry.ranks.end());
    // MPI: a rank writes its log (its commit) only after every rank's file is durable, so a log
    // per rank file means every rank committed, before the marker is written.
    if (!entry.committed && logs > 0 && logs == entry.ranks.size()) {
      entry.committed = true;
      entry.nranks_expected = uint32_t(logs);
    }
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const CheckpointEntry &a, const CheckpointEntry &b) { return a.number < b.number; });
  return entries;
}

uint64_t CheckpointDir::highest_number() const {
  const auto entries = list();
  return entries.empty() ? 0 : entries.back().number;
}

void CheckpointDir::prune(unsigned keep) const {
  if (keep == 0) return;
  const auto entries = list();
  unsigned committed_seen = 0;
  uint64_t oldest_kept = 0;
  for (auto it = entries.rbegin(); it != entries.rend() && committed_seen < keep; ++it)
    if (it->committed) {
      ++committed_seen;
      oldest_kept = it->number;
    }
  if (committed_seen == 0) return;  // nothing committed yet: everything may still be needed
  for (const CheckpointEntry &e : entries)
    if (e.number < oldest_kept) remove(e.number);
}

void CheckpointDir::remove(uint64_t number) const {
  const std::string path = checkpoint_path(number);
  // The marker goes first and durably, so a crash halfway through never leaves a folder that
  // claims to be committed but lacks files.
  const std::string marker = path + "/" + kCommittedName;
  if (::unlink(marker.c_str()) == 0) {
    fsync_path(path);
  } else if (errno != ENOENT && errno != ENOTDIR) {
    throw_sys_error("remove " + marker);
  }
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) throw Error("remove " + path + ": " + ec.message());
}

}  // namespace c3
