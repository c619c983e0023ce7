#include "checkpoint/commit_report.hpp"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "control/control_channel.hpp"
#include "state/protocol_state.hpp"
#include "support/text_format.hpp"

namespace c3::mpi::commit_report {
namespace {

struct Tally {
  int ranks = 0;
  uint64_t bytes = 0;
  uint64_t first_start_ns = UINT64_MAX;  // CLOCK_REALTIME: comparable between nodes
};

std::map<uint64_t, Tally> g_tallies;       // rank 0: checkpoints not yet committed by all
std::map<uint64_t, uint64_t> g_started;  // this rank's start of each checkpoint in progress

uint64_t wall_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void tally(uint64_t number, uint64_t bytes, uint64_t start_ns) {
  Tally &t = g_tallies[number];
  t.ranks += 1;
  t.bytes += bytes;
  t.first_start_ns = std::min(t.first_start_ns, start_ns);
  if (t.ranks < rt().size) return;
  const uint64_t now = wall_ns();
  const double seconds = now > t.first_start_ns ? double(now - t.first_start_ns) / 1e9 : 0.0;
  std::fprintf(stderr, "c3: checkpoint %lu committed (%s in %d ranks, %.3f s)\n",
               static_cast<unsigned long>(number), human_bytes(t.bytes).c_str(), rt().size,
               seconds);
  std::fflush(stderr);
  g_tallies.erase(g_tallies.begin(), g_tallies.upper_bound(number));
}

}  // namespace

void started(uint64_t number) { g_started[number] = wall_ns(); }

void committed_here(uint64_t number, uint64_t bytes) {
  auto it = g_started.find(number);
  const uint64_t start = it != g_started.end() ? it->second : wall_ns();
  g_started.erase(g_started.begin(), g_started.upper_bound(number));
  if (rt().rank == 0)
    tally(number, bytes, start);
  else
    control::post(0, control::kCommittedHere, {number, bytes, start});
}

void received(const std::vector<uint64_t> &words) {
  if (words.size() >= 3) tally(words[0], words[1], words[2]);
}

}  // namespace c3::mpi::commit_report
