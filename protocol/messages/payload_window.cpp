#include "messages/payload_window.hpp"

#include <mpi.h>

#include <cstdlib>

#include "layer/layer.hpp"

namespace c3::mpi::payload_window {

namespace detail {
uint64_t *g_words = nullptr;
}

namespace {

MPI_Win g_window = MPI_WIN_NULL;
std::vector<uint8_t> g_stalled;  // world ranks this rank stalls
size_t g_stalled_count = 0;
std::vector<int64_t> g_taken;

}  // namespace

void create() {
  const size_t n = size_t(rt().size);
  // Zeroed before the collective creation: no peer can reach a word before it is.
  detail::g_words = static_cast<uint64_t *>(std::calloc(n, sizeof(uint64_t)));
  if (!detail::g_words) fatal("out of memory for the payload window");
  if (PMPI_Win_create(detail::g_words, MPI_Aint(n * sizeof(uint64_t)), int(sizeof(uint64_t)),
                      MPI_INFO_NULL, MPI_COMM_WORLD, &g_window) != MPI_SUCCESS ||
      PMPI_Win_lock_all(MPI_MODE_NOCHECK, g_window) != MPI_SUCCESS)
    fatal("could not create c3's payload window on MPI_COMM_WORLD");
  g_stalled.assign(n, 0);
  g_stalled_count = 0;
  g_taken.assign(n, 0);
}

void destroy() {
  if (g_window == MPI_WIN_NULL) return;
  PMPI_Win_unlock_all(g_window);  // completes the releases still in flight
  PMPI_Win_free(&g_window);
  std::free(detail::g_words);
  detail::g_words = nullptr;
  g_stalled.clear();
  g_stalled_count = 0;
}

void stall(const std::vector<int> &senders, std::vector<int64_t> &announced) {
  static const uint64_t mark = kStalled;
  std::vector<int> fresh;
  std::vector<uint64_t> words;
  for (int s : senders)
    if (!g_stalled[size_t(s)]) {
      g_stalled[size_t(s)] = 1;
      ++g_stalled_count;
      fresh.push_back(s);
    }
  if (fresh.empty()) return;
  words.resize(fresh.size());
  const MPI_Aint mine = rt().rank;
  for (size_t i = 0; i < fresh.size(); ++i)
    PMPI_Fetch_and_op(&mark, &words[i], MPI_UINT64_T, fresh[i], mine, MPI_BOR, g_window);
  // Needs only the senders' MPI progress, which every MPI call of theirs makes, even inside a
  // blocking collective.
  PMPI_Win_flush_all(g_window);
  for (size_t i = 0; i < fresh.size(); ++i)
    announced[size_t(fresh[i])] = int64_t(words[i] & kCountMask);
}

bool stalls(int sender) { return g_stalled[size_t(sender)] != 0; }
bool stalls_any() { return g_stalled_count != 0; }

void release_all() {
  static const uint64_t keep = ~kStalled;
  if (g_stalled_count == 0) return;
  const MPI_Aint mine = rt().rank;
  for (size_t s = 0; s < g_stalled.size(); ++s)
    if (g_stalled[s]) {
      // Not flushed: a sender that sees the mark a little longer only copies a payload it
      // could have sent from the program's buffer. Accumulates to one word stay in order.
      PMPI_Accumulate(&keep, 1, MPI_UINT64_T, int(s), mine, 1, MPI_UINT64_T, MPI_BAND, g_window);
      g_stalled[s] = 0;
    }
  g_stalled_count = 0;
}

void ask_splits_all(int sender) {
  static const uint64_t bit = kSplitsAll;
  PMPI_Accumulate(&bit, 1, MPI_UINT64_T, sender, rt().rank, 1, MPI_UINT64_T, MPI_BOR, g_window);
}

void unask_splits_all(int sender) {
  static const uint64_t keep = ~kSplitsAll;
  PMPI_Accumulate(&keep, 1, MPI_UINT64_T, sender, rt().rank, 1, MPI_UINT64_T, MPI_BAND, g_window);
  PMPI_Win_flush(sender, g_window);
}

void took(int sender) { ++g_taken[size_t(sender)]; }
int64_t taken(int sender) { return g_taken[size_t(sender)]; }

}  // namespace c3::mpi::payload_window
