// c3: inspect and verify checkpoint directories; run a job until it finishes (c3 run).
//
// Exit status: 0 all good, 1 a committed checkpoint is damaged (or a file could not be read),
// 2 usage error (unknown command, bad arguments, missing directory).
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lifecycle/checkpoint.hpp"
#include "store/ckpt_dir.hpp"
#include "store/ckpt_file.hpp"
#include "support/text_format.hpp"
#include "support/error.hpp"
#include "run/run_command.hpp"

#ifndef C3_VERSION
#define C3_VERSION "unknown"
#endif

namespace {

constexpr int kExitOk = 0;
constexpr int kExitDamaged = 1;
constexpr int kExitUsage = 2;

const char kUsage[] =
    "usage: c3 <command> [arguments]\n"
    "\n"
    "Inspect and verify a c3 checkpoint directory (C3_CKPT_DIR).\n"
    "\n"
    "commands:\n"
    "  ls DIR          list checkpoints: number, state, ranks present/expected, size, time\n"
    "                  (cheap: looks at the commit marker and which rank files exist)\n"
    "  verify DIR [N]  read every rank file of every checkpoint (or of checkpoint N) and check\n"
    "                  all checksums; exit status 1 if a committed checkpoint is damaged\n"
    "  info DIR [N]    file header and sections of each rank file of checkpoint N\n"
    "                  (default: the newest committed checkpoint)\n"
    "  run [--max-restarts N] [--resume] [--] COMMAND...\n"
    "                  run a job (mpiexec ..., srun ..., ./app) and relaunch it from its newest\n"
    "                  checkpoint when it fails, until it finishes; exit status: the program's\n"
    "\n"
    "options:\n"
    "  -h, --help      show this help\n"
    "  --version       show the version\n"
    "\n"
    "exit status: 0 ok, 1 damaged checkpoint or unreadable file, 2 usage error\n";

struct UsageError {
  std::string message;
};


std::string local_time_iso(int64_t seconds) {
  const time_t t = time_t(seconds);
  tm local{};
  if (localtime_r(&t, &local) == nullptr) return "?";
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &local);
  return text;
}

std::string hex(const std::string &bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out.empty() ? "(none)" : out;
}

std::string folder_name(const c3::CheckpointEntry &e) {
  const size_t slash = e.path.find_last_of('/');
  return slash == std::string::npos ? e.path : e.path.substr(slash + 1);
}

std::string plural(uint64_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// The directory must exist: a typo must not look like "no checkpoints".
c3::CheckpointDir open_dir(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw UsageError{path + ": " + std::strerror(errno)};
  if (!S_ISDIR(st.st_mode)) throw UsageError{path + ": not a directory"};
  return c3::CheckpointDir(path);
}

uint64_t parse_checkpoint_number(const std::string &text) {
  std::string digits = text;
  if (digits.compare(0, 5, "ckpt.") == 0) digits = digits.substr(5);
  if (digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError{"'" + text + "' is not a checkpoint number"};
  return std::stoull(digits);
}

// Ranks the COMMITTED marker promises but whose files are missing, and files beyond nranks.
bool rank_files_complete(const c3::CheckpointEntry &e) {
  if (!e.committed) return false;
  if (e.ranks.size() != e.nranks_expected) return false;
  for (uint32_t r = 0; r < e.nranks_expected; ++r)
    if (e.ranks[r] != r) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------

int command_ls(const std::vector<std::string> &args) {
  if (args.size() != 1) throw UsageError{"ls takes exactly one argument: DIR"};
  const c3::CheckpointDir dir = open_dir(args[0]);
  const auto entries = dir.list();
  if (entries.empty()) {
    std::printf("no checkpoints in %s\n", dir.root().c_str());
    return kExitOk;
  }
  // RANKS: rank files present / ranks the commit marker names (an incomplete checkpoint has no
  // marker, so only the files present). What is not committed and whole is explained below.
  std::printf("%-12s  %-10s  %-7s  %10s  %s\n", "CHECKPOINT", "STATE", "RANKS", "SIZE", "TIME");
  std::vector<std::string> notes;
  for (const auto &e : entries) {
    const bool whole = rank_files_complete(e);
    const char *state = !e.committed ? "incomplete" : whole ? "committed" : "damaged?";
    const std::string ranks =
        std::to_string(e.ranks.size()) + (e.committed ? "/" + std::to_string(e.nranks_expected) : "");
    std::printf("%-12s  %-10s  %-7s  %10s  %s\n", folder_name(e).c_str(), state, ranks.c_str(),
                c3::human_bytes(e.bytes).c_str(), local_time_iso(e.mtime_s).c_str());
    if (!e.committed)
      notes.push_back(folder_name(e) + ": incomplete: " + plural(e.ranks.size(), "rank file") +
                      " written and no commit marker (the job stopped while writing it); a "
                      "restart never uses it");
    else if (!whole)
      notes.push_back(folder_name(e) + ": committed by " + plural(e.nranks_expected, "rank") +
                      " but " + std::to_string(e.ranks.size()) +
                      " rank file(s) found; `c3 verify` tells which are missing or extra");
  }
  if (!notes.empty()) std::printf("\n");
  for (const std::string &note : notes) std::printf("%s\n", note.c_str());
  return kExitOk;
}

// Verifies one checkpoint: every rank file it should have (committed) or has (incomplete).
// Prints one summary line plus one indented line per problem. Returns false if damaged.
bool verify_checkpoint(const c3::CheckpointDir &dir, const c3::CheckpointEntry &e) {
  std::vector<std::string> problems;
  std::set<uint32_t> to_check(e.ranks.begin(), e.ranks.end());
  for (uint32_t r = 0; r < e.nranks_expected; ++r) {
    if (!to_check.count(r)) problems.push_back(dir.rank_file(e.number, r) + ": missing");
    to_check.insert(r);
  }
  std::optional<std::string> build_id;
  uint32_t build_id_rank = 0;
  uint64_t bytes = 0;
  for (uint32_t r : to_check) {
    const std::string path = dir.rank_file(e.number, r);
    if (e.committed && r >= e.nranks_expected) {
      problems.push_back(path + ": rank beyond the " + std::to_string(e.nranks_expected) +
                         " ranks of the commit marker");
      continue;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;  // already reported as missing
    try {
      const c3::CheckpointReader reader(path);
      const c3::FileHeader &h = reader.header();
      bytes += reader.file_size();
      if (h.checkpoint != e.number)
        problems.push_back(path + ": header says checkpoint " + std::to_string(h.checkpoint));
      if (h.rank != r) problems.push_back(path + ": header says rank " + std::to_string(h.rank));
      if (e.committed && h.nranks != e.nranks_expected)
        problems.push_back(path + ": header says " + plural(h.nranks, "rank") +
                           ", the commit marker " + std::to_string(e.nranks_expected));
      if (build_id && *build_id != h.build_id)
        problems.push_back(path + ": written by a different executable than rank " +
                           std::to_string(build_id_rank));
      if (!build_id) {
        build_id = h.build_id;
        build_id_rank = r;
      }
    } catch (const c3::Error &err) {
      problems.push_back(err.what());
    }
  }

  const std::string name = folder_name(e);
  if (e.committed) {
    if (problems.empty())
      std::printf("%s: ok (%s, %s)\n", name.c_str(), plural(e.nranks_expected, "rank").c_str(),
                  c3::human_bytes(bytes).c_str());
    else
      std::printf("%s: DAMAGED\n", name.c_str());
  } else {
    std::printf("%s: incomplete (not committed; %s present%s)\n", name.c_str(),
                plural(e.ranks.size(), "rank file").c_str(),
                problems.empty() ? "" : ", with errors");
  }
  for (const std::string &p : problems) std::printf("  %s\n", p.c_str());
  return !e.committed || problems.empty();
}

const c3::CheckpointEntry *find_entry(const std::vector<c3::CheckpointEntry> &entries,
                                      uint64_t number) {
  for (const auto &e : entries)
    if (e.number == number) return &e;
  return nullptr;
}

int command_verify(const std::vector<std::string> &args) {
  if (args.empty() || args.size() > 2) throw UsageError{"verify takes DIR and optionally N"};
  const c3::CheckpointDir dir = open_dir(args[0]);
  const auto entries = dir.list();
  std::vector<const c3::CheckpointEntry *> chosen;
  if (args.size() == 2) {
    const uint64_t number = parse_checkpoint_number(args[1]);
    const c3::CheckpointEntry *e = find_entry(entries, number);
    if (!e) throw UsageError{"no checkpoint " + std::to_string(number) + " in " + dir.root()};
    chosen.push_back(e);
  } else {
    for (const auto &e : entries) chosen.push_back(&e);
  }
  if (chosen.empty()) {
    std::printf("no checkpoints in %s\n", dir.root().c_str());
    return kExitOk;
  }
  bool all_good = true;
  for (const c3::CheckpointEntry *e : chosen) all_good &= verify_checkpoint(dir, *e);
  std::fflush(stdout);
  return all_good ? kExitOk : kExitDamaged;
}

void print_file_info(const c3::CheckpointReader &reader) {
  const c3::FileHeader &h = reader.header();
  std::printf("%s (%s)\n", reader.path().c_str(), c3::human_bytes(reader.file_size()).c_str());
  std::printf("  format version  %" PRIu32 "\n", h.format_version);
  std::printf("  build-id        %s\n", hex(h.build_id).c_str());
  std::printf("  rank            %" PRIu32 " of %" PRIu32 "\n", h.rank, h.nranks);
  std::printf("  checkpoint      %" PRIu64 "\n", h.checkpoint);
  const std::string when = local_time_iso(int64_t(h.unix_time_ns / 1000000000u));
  std::printf("  time            %s.%03u\n", when.c_str(),
              unsigned(h.unix_time_ns / 1000000u % 1000u));
  std::printf("  sections        %zu\n", reader.sections().size());
  for (const c3::SectionView &s : reader.sections())
    std::printf("    %-16s %14" PRIu64 " bytes  %10s\n", c3::section_name(s.kind), s.size,
                c3::human_bytes(s.size).c_str());
}

// An MPI rank's log (its local commit) holds the protocol's statistics for the checkpoint.
bool print_protocol_stats(const c3::CheckpointDir &dir, uint64_t number, uint32_t rank) {
  const std::string path = dir.checkpoint_path(number) + "/rank." + std::to_string(rank) + ".log";
  if (::access(path.c_str(), F_OK) != 0) return true;  // not MPI, or not committed by this rank
  try {
    const c3::CheckpointReader reader(path);
    const c3::SectionView &meta = reader.section(c3::SectionKind::Meta);
    auto fields = c3::checkpoint::decode_meta(
        std::string(reinterpret_cast<const char *>(meta.data), size_t(meta.size)));
    std::printf("  rank %u protocol: late messages %s (%s bytes), early messages %s, logged events %s\n",
                rank, fields["late_messages"].c_str(), fields["late_bytes"].c_str(),
                fields["early_messages"].c_str(), fields["logged_events"].c_str());
    std::printf("  rank %u modes: NonDet-Log %s s, RecvOnly-Log %s s\n", rank,
                fields["nondet_log_s"].c_str(), fields["recvonly_log_s"].c_str());
    return true;
  } catch (const c3::Error &err) {
    std::printf("%s\n", err.what());
    return false;
  }
}

int command_info(const std::vector<std::string> &args) {
  if (args.empty() || args.size() > 2) throw UsageError{"info takes DIR and optionally N"};
  const c3::CheckpointDir dir = open_dir(args[0]);
  const auto entries = dir.list();
  const c3::CheckpointEntry *entry = nullptr;
  if (args.size() == 2) {
    const uint64_t number = parse_checkpoint_number(args[1]);
    entry = find_entry(entries, number);
    if (!entry) throw UsageError{"no checkpoint " + std::to_string(number) + " in " + dir.root()};
  } else {
    for (const auto &e : entries)
      if (e.committed) entry = &e;
    if (!entry && !entries.empty()) entry = &entries.back();
  }
  if (!entry) {
    std::printf("no checkpoints in %s\n", dir.root().c_str());
    return kExitOk;
  }
  std::printf("%s: %s, %s of %s present\n", folder_name(*entry).c_str(),
              entry->committed ? "committed" : "not committed",
              plural(entry->ranks.size(), "rank file").c_str(),
              entry->committed ? std::to_string(entry->nranks_expected).c_str() : "?");
  int status = kExitOk;
  for (uint32_t r : entry->ranks) {
    try {
      const c3::CheckpointReader reader(dir.rank_file(entry->number, r));
      print_file_info(reader);
    } catch (const c3::Error &err) {
      std::printf("%s\n", err.what());
      status = kExitDamaged;
    }
  }
  for (uint32_t r : entry->ranks)
    if (!print_protocol_stats(dir, entry->number, r)) status = kExitDamaged;
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "-h" || command == "--help" || command == "help") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (command == "--version") {
      std::printf("c3 %s\n", C3_VERSION);
      return kExitOk;
    }
    if (command == "ls") return command_ls(args);
    if (command == "verify") return command_verify(args);
    if (command == "info") return command_info(args);
    if (command == "run") return c3::run::run_command(args);
    throw UsageError{"unknown command '" + command + "' (try c3 --help)"};
  } catch (const UsageError &err) {
    std::fflush(stdout);
    std::fprintf(stderr, "c3: error: %s\n", err.message.c_str());
    return kExitUsage;
  } catch (const std::exception &err) {
    std::fflush(stdout);
    std::fprintf(stderr, "c3: error: %s\n", err.what());
    return kExitDamaged;
  }
}
