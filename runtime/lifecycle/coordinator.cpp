#include "lifecycle/coordinator.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "support/error.hpp"
#include "io/output_commit.hpp"

namespace c3 {
namespace {

class LocalCoordinator final : public Coordinator {
 public:
  uint32_t rank() const override { return 0; }
  uint32_t nranks() const override { return 1; }

  uint64_t next_number(const CheckpointDir &dir, uint64_t last) override {
    uint64_t highest = 0;
    try {
      highest = dir.highest_number();
    } catch (const Error &) {
      // An unreadable directory fails properly a moment later, in ensure_exists().
    }
    return std::max(highest, last) + 1;
  }

  bool file_written(const CheckpointDir &dir, uint64_t number, unsigned keep) override {
    dir.mark_committed(number, 1);
    try {
      dir.prune(keep);
    } catch (const Error &e) {
      // The checkpoint is committed; old ones staying behind only costs space.
      std::fprintf(stderr, "c3: warning: removing old checkpoints: %s\n", e.what());
    }
    return true;
  }
};

LocalCoordinator g_local;
Coordinator *g_current = &g_local;

}  // namespace

// One process releases all held output right after each commit and marks it.
uint64_t Coordinator::held_output_shown(const CheckpointDir &dir, uint64_t number, uint64_t held) {
  switch (output::held_output_shown(dir.checkpoint_path(number))) {
    case output::Shown::Yes:
      return held;
    case output::Shown::Maybe:
      // Killed between writing them to stdout and marking them: no one can tell whether they
      // reached it. They are shown again, and the user is told.
      std::fprintf(stderr,
                   "c3: warning: the process was killed while showing %lu bytes of its output; "
                   "they may appear twice\n",
                   static_cast<unsigned long>(held));
      return 0;
    case output::Shown::No:
      break;
  }
  return 0;
}

void Coordinator::give_up_restart(const std::string &message, bool) {
  std::fprintf(stderr, "c3: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(2);
}

Coordinator &local_coordinator() { return g_local; }
void set_coordinator(Coordinator *coordinator) { g_current = coordinator ? coordinator : &g_local; }
Coordinator &coordinator() { return *g_current; }

}  // namespace c3
