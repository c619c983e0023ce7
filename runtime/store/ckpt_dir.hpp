// The checkpoint directory: ckpt.NNNNNN/ folders, per-rank files, commit markers, pruning.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace c3 {

struct CheckpointEntry {
  uint64_t number = 0;
  std::string path;             // DIR/ckpt.NNNNNN
  bool committed = false;       // COMMITTED marker present
  uint32_t nranks_expected = 0; // from the COMMITTED marker (0 if not committed)
  std::vector<uint32_t> ranks;  // rank.R.c3 files present (final names only)
  uint64_t bytes = 0;           // sum of rank file sizes
  int64_t mtime_s = 0;
};

class CheckpointDir {
 public:
  explicit CheckpointDir(std::string root);
  const std::string &root() const { return root_; }

  // Creates the directory (mode 0700, parents as needed). Throws c3::Error if impossible or if it
  // exists but is not a writable directory.
  void ensure_exists() const;

  std::string checkpoint_path(uint64_t number) const;            // DIR/ckpt.%06llu
  std::string rank_file(uint64_t number, uint32_t rank) const;   // .../rank.R.c3
  // Creates DIR/ckpt.N/ (0700); removes a stale leftover of the same number first, unless
  // `shared`: the ranks of an MPI job write into one folder (their numbers are new).
  void prepare(uint64_t number, bool shared = false) const;
  // Atomically writes the COMMITTED marker (text: nranks, time) and fsyncs the folder.
  void mark_committed(uint64_t number, uint32_t nranks) const;

  // All checkpoints found, ascending by number. Ignores foreign entries.
  std::vector<CheckpointEntry> list() const;
  // Why a restart finds nothing to restart from here, in words: the directory does not exist,
  // is not a directory, holds no checkpoint, or holds only unfinished ones.
  std::string why_nothing_committed() const;
  // Largest number present (committed or not), 0 if none.
  uint64_t highest_number() const;
  // Keeps the newest `keep` committed checkpoints (and anything newer than them); removes older
  // ones, committed or not. keep == 0 disables pruning; with nothing committed nothing is removed.
  void prune(unsigned keep) const;
  // Removes DIR/ckpt.N recursively (the COMMITTED marker first). Missing is not an error.
  void remove(uint64_t number) const;

 private:
  std::string root_;
};

}  // namespace c3
