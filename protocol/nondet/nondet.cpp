// Non-deterministic outcomes: numbered calls (tests, probes, Wait{any,some}) are logged in
// NonDet-Log, run-length encoded for repeated unsuccessful tests, and replayed after a restart
// until the log ends, when the rank goes from Restore to Run.
#include "nondet/nondet.hpp"

#include "layer/layer.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {

uint64_t next_call() { return state().next_call++; }

bool replaying(uint64_t call) {
  const ProtocolState &st = state();
  return st.mode == Mode::Restore && call < st.replay.calls_logged_until;
}

const Outcome &replayed(uint64_t call) {
  ProtocolState &st = state();
  const auto &outcomes = st.replay.outcomes;
  size_t &i = st.replay_next_outcome;
  while (i < outcomes.size() && outcomes[i].call + outcomes[i].repeat <= call) ++i;
  if (i == outcomes.size() || outcomes[i].call > call)
    fatal("restart diverged: no logged outcome for non-deterministic call " +
          std::to_string(call));
  return outcomes[i];  // Restore ends when the hook is done with it (~Entry)
}

void log_outcome(uint64_t call, int flag, const std::vector<int> &indices, int source, int tag,
                 int64_t bytes) {
  ProtocolState &st = state();
  if (st.mode != Mode::NonDetLog) return;
  auto &outcomes = st.log.outcomes;
  if (!flag && !outcomes.empty()) {
    Outcome &last = outcomes.back();
    if (!last.flag && last.call + last.repeat == call) {
      ++last.repeat;
      return;
    }
  }
  Outcome o;
  o.call = call;
  o.flag = flag;
  o.indices = indices;
  o.source = source;
  o.tag = tag;
  o.bytes = bytes;
  outcomes.push_back(std::move(o));
}

void maybe_end_restore() {
  ProtocolState &st = state();
  if (st.mode != Mode::Restore) return;
  if (!st.pool.empty() || !st.was_early.empty() || st.next_call < st.replay.calls_logged_until ||
      !st.replay.collectives.empty())
    return;
  for (const auto &r : st.replay.resolutions)
    if (r.first >= st.next_posting) return;
  for (const auto &c : st.replay.cancelled)
    if (c.first >= st.next_posting) return;
  // A logged probe match waits for its probe until the receive posting it came before is made
  // (a restart whose probes went another way never uses it).
  for (const auto &p : st.replay.probe_matches)
    if (p.second.posting >= st.next_posting) return;
  set_mode(Mode::Run);
  st.replay = CheckpointLog{};
}

}  // namespace c3::mpi
