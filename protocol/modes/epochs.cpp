// Epochs and modes (Run, NonDet-Log, RecvOnly-Log, Restore), Checkpoint-Initiated messages on the
// private communicator, the local commit (the log file) and learning the global commit.
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/deque.hpp>
#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include "store/build_id.hpp"
#include "lifecycle/checkpoint.hpp"
#include "checkpoint/commit_report.hpp"
#include "checkpoint/protocol_files.hpp"
#include "store/ckpt_dir.hpp"
#include "store/ckpt_file.hpp"
#include "lifecycle/config.hpp"
#include "collectives/collective_bounds.hpp"
#include "control/control_channel.hpp"
#include "support/error.hpp"
#include "lifecycle/fault_injection.hpp"
#include "handles/errhandlers.hpp"
#include "handles/handles.hpp"
#include "layer/idle_wait.hpp"
#include "layer/layer.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "io/output_commit.hpp"
#include "support/text_format.hpp"

namespace c3::mpi {
namespace {

ProtocolState &g_state = g_protocol_state;
Runtime &g_rt = g_runtime;

void handle_control(int source, int tag, const std::vector<uint64_t> &msg) {
  ProtocolState &st = g_state;
  if (tag == control::kAllInitiated) {
    // Always of the current epoch: the sender had our Checkpoint-Initiated of it.
    if (msg[0] == st.epoch) ++g_rt.all_initiated_from;
    return;
  }
  if (tag == control::kCommittedHere) {
    commit_report::received(msg);
    return;
  }
  if (tag == control::kFinalizing) {
    g_rt.finalizing_epoch[size_t(source)] = int64_t(msg[0]);
    return;
  }
  if (tag == control::kLoggingEnded) {
    // Of this epoch, or of an older one that this rank has left behind too.
    if (msg[0] == st.epoch) g_rt.logging_ended_elsewhere = true;
    return;
  }
  if (tag == control::kInitiated) {
    const uint64_t *report = msg.data() + 2;
    const size_t report_words = msg.size() - 2;
    if (msg[0] == st.epoch) {
      st.initiated[size_t(source)] = 1;
      st.expected_late[size_t(source)] = msg[1];
      coll::note_report(source, report, report_words, false);
    } else if (msg[0] == st.epoch + 1) {
      st.ahead[size_t(source)] = int64_t(msg[1]);
      coll::note_report(source, report, report_words, true);
      checkpoint::request();
    }
    // Older ones cannot exist: a process starts epoch e+1 only after our Checkpoint-Initiated(e).
  }
}

bool late_complete() {
  const ProtocolState &st = g_state;
  const auto &prev = st.received[(st.epoch + 3) & 3];
  for (int q = 0; q < g_rt.size; ++q)
    if (!st.initiated[size_t(q)] || prev[size_t(q)] != st.expected_late[size_t(q)]) return false;
  return true;
}

void commit_locally() {
  ProtocolState &st = g_state;
  const uint64_t number = checkpoint_number(st.epoch);
  fault::reached(FaultStage::RecvOnlyLog, number);
  coll::trim_log(st.log);
  set_mode(Mode::Run);
  g_rt.unconfirmed_probes.clear();
  CheckpointDir dir(config().ckpt_dir);
  if (st.failed_epoch == st.epoch) return;  // its state file was never written
  try {
    uint64_t log_bytes = files::write_log(dir, number, g_rt.rank, g_rt.size, st.log);
    st.locally_committed = number;
    struct stat state_file;
    uint64_t state_bytes = ::stat(dir.rank_file(number, uint32_t(g_rt.rank)).c_str(), &state_file) == 0
                               ? uint64_t(state_file.st_size)
                               : 0;
    if (config().verbose) {
      std::fprintf(stderr, "c3: rank %d: checkpoint %lu committed here (%s state, %s log, %s)\n",
                   g_rt.rank, static_cast<unsigned long>(number), human_bytes(state_bytes).c_str(),
                   human_bytes(log_bytes).c_str(), files::stats_line(st.log).c_str());
      std::fflush(stderr);
    }
    commit_report::committed_here(number, state_bytes + log_bytes);
  } catch (const Error &e) {
    std::fprintf(stderr, "c3: error: checkpoint %lu not committed: %s\n",
                 static_cast<unsigned long>(number), e.what());
    return;
  }
  fault::reached(FaultStage::AfterLocalCommit, number);
  if (g_rt.size == 1) learn_global_commit(number);
}

}  // namespace

uint64_t checkpoint_number(uint64_t epoch) { return g_state.number_base + epoch; }

bool logging_nondet() { return g_state.mode == Mode::NonDetLog; }


void set_mode(Mode mode) {
  ProtocolState &st = g_state;
  uint64_t now = now_ns();
  if (st.mode == Mode::NonDetLog) st.log.nondet_ns += now - g_rt.mode_since_ns;
  if (st.mode == Mode::RecvOnlyLog) st.log.recvonly_ns += now - g_rt.mode_since_ns;
  st.mode = mode;
  g_rt.mode_since_ns = now;
  update_attention();
}

namespace {

// A control message outside MPI_Finalize's last rounds: a Final is kept for them.
void dispatch_control(const control::Message &m) {
  if (m.tag == control::kFinal)
    g_rt.final_from.push_back({m.source, m.words[0]});
  else
    handle_control(m.source, m.tag, m.words);
}

}  // namespace

void poll_control() {
  if (!g_rt.initialized || g_rt.finalized) return;
  for (control::Message m; control::take(m, false);) dispatch_control(m);
  if (!g_rt.control_sends.empty()) control::reap(false);
}

void progress() {
  poll_control();
  complete_orphans(false);
  maybe_advance();
}

void enter_checkpoint() {
  ProtocolState &st = g_state;
  const int n = g_rt.size;
  st.epoch += 1;
  st.expected_late.assign(size_t(n), 0);
  for (int q = 0; q < n; ++q) {
    st.initiated[size_t(q)] = 0;
    if (st.ahead[size_t(q)] >= 0) {
      st.initiated[size_t(q)] = 1;
      st.expected_late[size_t(q)] = uint64_t(st.ahead[size_t(q)]);
      st.ahead[size_t(q)] = -1;
    }
  }
  st.initiated[size_t(g_rt.rank)] = 1;
  st.expected_late[size_t(g_rt.rank)] = st.sent[size_t(g_rt.rank)];
  g_rt.sent_all_initiated = false;
  g_rt.all_initiated_from = 0;
  g_rt.logging_ended_elsewhere = false;
  g_rt.unconfirmed_probes.clear();
  g_rt.initiated_counts = st.sent;  // what Checkpoint-Initiated tells each peer
  st.sent.assign(size_t(n), 0);
  st.received[(st.epoch + 2) & 3].assign(size_t(n), 0);  // colour epoch-2, free again
  st.log = CheckpointLog{};
  uint64_t early = 0;
  for (const auto &e : st.early) early += e.second;
  st.log.early_messages = early;
  st.output_released_at_snapshot = output::released_bytes();
  st.output_at_snapshot = output::released_bytes() + output::pending_bytes();
  coll::new_epoch();  // this rank's collective numbers at the checkpoint
  set_mode(Mode::NonDetLog);
}

void send_checkpoint_initiated() {
  ProtocolState &st = g_state;
  for (int q = 0; q < g_rt.size; ++q) {
    if (q == g_rt.rank) continue;
    std::vector<uint64_t> words{st.epoch, g_rt.initiated_counts[size_t(q)]};
    words.insert(words.end(), g_rt.own_report.begin(), g_rt.own_report.end());
    control::post(q, control::kInitiated, std::move(words));
  }
  g_rt.pending_output_marks[checkpoint_number(st.epoch)] = st.output_at_snapshot;
  maybe_advance();
}

void maybe_advance() {
  ProtocolState &st = g_state;
  if (st.mode == Mode::NonDetLog) {
    const uint64_t number = checkpoint_number(st.epoch);
    if (!g_rt.sent_all_initiated) {
      for (int q = 0; q < g_rt.size; ++q)
        if (!st.initiated[size_t(q)]) return;
      // Checkpoint-Initiated(e) from everyone: everyone committed e-1.
      if (st.epoch >= 2 && number - 1 > st.globally_committed &&
          st.locally_committed >= number - 1)
        learn_global_commit(number - 1);
      g_rt.sent_all_initiated = true;
      ++g_rt.all_initiated_from;
      control::post_to_all(control::kAllInitiated, st.epoch, 0);
    }
    // Logging ends only once every rank has all Checkpoint-Initiated: until then a rank that
    // still logs may receive our messages, and its replay needs them to be the same. A rank
    // that ended its logging knew that already (or learnt it from one that did).
    if (g_rt.all_initiated_from < g_rt.size && !g_rt.logging_ended_elsewhere) return;
    end_nondet_log();
    return;
  }
  // Late messages in, and every collective result a restart will need from this log (the calls
  // some member made before its checkpoint and this rank after its own).
  if (st.mode == Mode::RecvOnlyLog && late_complete() && coll::settled()) commit_locally();
}

void end_nondet_log() {
  ProtocolState &st = g_state;
  if (st.mode != Mode::NonDetLog) return;
  fault::reached(FaultStage::NonDetLog, checkpoint_number(st.epoch));
  // A hook running now may have taken a call number: its outcome is not logged, so the replay
  // must not expect it.
  st.log.calls_logged_until = g_depth > 0 ? g_hook_first_call : st.next_call;
  set_mode(Mode::RecvOnlyLog);
  // Our messages from now on carry a cleared logging bit, but a probe cannot see it: this notice
  // goes ahead of them (one MPICH connection per peer delivers in order), so a rank that still
  // logs learns it before it could log a probe's match of one of them.
  control::post_to_all(control::kLoggingEnded, st.epoch, 0);
  maybe_advance();
}

void before_logging_probe() {
  if (g_state.mode != Mode::NonDetLog) return;
  poll_control();
  maybe_advance();
}

void learn_global_commit(uint64_t number) {
  ProtocolState &st = g_state;
  if (number <= st.globally_committed) return;
  st.globally_committed = number;
  CheckpointDir dir(config().ckpt_dir);
  if (g_rt.rank == 0) {
    try {
      dir.mark_committed(number, uint32_t(g_rt.size));
      dir.prune(config().keep);
    } catch (const Error &e) {
      std::fprintf(stderr, "c3: warning: checkpoint %lu: %s\n", static_cast<unsigned long>(number),
                   e.what());
    }
  }
  fault::reached(FaultStage::BeforeRelease, number);
  auto mark = g_rt.pending_output_marks.find(number);
  if (mark != g_rt.pending_output_marks.end()) {
    uint64_t released = output::released_bytes();
    auto record = [&](uint64_t shown, uint64_t showing) {
      if (shown == showing) fault::reached(FaultStage::MidRelease, number);
      files::record_shown_output(dir, g_rt.rank, shown, showing);
    };
    if (mark->second > released) output::release_prefix(mark->second - released, record);
    files::record_shown_so_far(dir, g_rt.rank);
    g_rt.pending_output_marks.erase(g_rt.pending_output_marks.begin(), ++mark);
  }
  fault::reached(FaultStage::AfterCommit, number);
}

void link_coordinator();

void setup_after_init(bool restarting) {
  link_coordinator();
  // c3 is inside MPICH only below a hook (or the checkpoint protocol), where a peer's death
  // shows as an abort of this rank.
  output::hold_on_crash_when([] { return g_depth > 0; });
  PMPI_Comm_rank(MPI_COMM_WORLD, &g_rt.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &g_rt.size);
  PMPI_Comm_dup(MPI_COMM_WORLD, &g_rt.control);
  split::setup();
  setup_handles();
  g_rt.initialized = true;
  g_rt.restarted = restarting;
  checkpoint::poll_sites(true);
  fault::set_rank(g_rt.rank);
  ProtocolState &st = g_state;
  const size_t n = size_t(g_rt.size);
  st.sent.assign(n, 0);
  for (auto &r : st.received) r.assign(n, 0);
  st.expected_late.assign(n, 0);
  st.initiated.assign(n, 1);
  st.ahead.assign(n, -1);
  g_rt.finalizing_epoch.assign(n, -1);
  g_rt.reports.assign(n, {});
  g_rt.ahead_reports.assign(n, {});
  // Checkpoint numbers continue above everything in the directory, on every rank alike.
  uint64_t highest = 0;
  try {
    highest = CheckpointDir(config().ckpt_dir).highest_number();
  } catch (const Error &) {
  }
  uint64_t agreed = 0;
  MPI_Request agreement = MPI_REQUEST_NULL;
  PMPI_Iallreduce(&highest, &agreed, 1, MPI_UINT64_T, MPI_MAX, g_rt.control, &agreement);
  idle_wait(agreement, MPI_STATUS_IGNORE);
  st.number_base = agreed;
  g_rt.mode_since_ns = now_ns();
  update_attention();
  // A fresh lineage starts with nothing shown (a record left by an earlier job must not make a
  // restart of this one drop output).
  if (!restarting) files::record_shown_output(CheckpointDir(config().ckpt_dir), g_rt.rank, 0, 0);
}

namespace {

bool checkpoint_in_progress() {
  return g_state.mode == Mode::NonDetLog || g_state.mode == Mode::RecvOnlyLog;
}

// In MPI_Finalize, whether the checkpoint in progress can no longer commit: a rank finalized
// before taking it, or a late message never came (the program has received all it will).
bool cannot_commit_any_more() {
  const ProtocolState &st = g_state;
  for (int64_t e : g_rt.finalizing_epoch)
    if (e >= 0 && uint64_t(e) < st.epoch) return true;
  return st.mode == Mode::RecvOnlyLog && (!late_complete() || !coll::settled());
}

// MPI_Finalize with a checkpoint in progress: a rank that finalizes early (its last pragma was
// near the end) still serves the protocol, so the checkpoint commits once every rank has taken
// it, instead of being abandoned because one rank was quicker. Blocks on control messages only:
// every peer either takes the checkpoint or announces that it finalized without it.
void finish_checkpoint_in_finalize() {
  while (checkpoint_in_progress() && !cannot_commit_any_more()) {
    control::Message m;
    control::take(m, true);
    dispatch_control(m);
    complete_orphans(false);
    maybe_advance();
  }
}

}  // namespace

void finalize_protocol() {
  ProtocolState &st = g_state;
  progress();
  control::post_to_all(control::kFinalizing, st.epoch, 0);
  finish_checkpoint_in_finalize();
  if (checkpoint_in_progress())
    std::fprintf(stderr,
                 "c3: checkpoint %lu abandoned at MPI_Finalize (%s: it cannot commit any more); "
                 "checkpoint %lu stays the newest\n",
                 static_cast<unsigned long>(checkpoint_number(st.epoch)), mode_name(st.mode),
                 static_cast<unsigned long>(st.locally_committed));
  control::post_to_all(control::kFinal, st.locally_committed, 0);
  // Two rounds: Final (everything a peer sent us on the control communicator arrives before
  // it), then Released. Earlier messages of other tags no longer matter.
  uint64_t everyone = st.locally_committed;
  size_t finals = g_rt.final_from.size(), released = 0;
  for (const auto &f : g_rt.final_from) everyone = std::min(everyone, f.second);
  auto take_one = [&] {
    control::Message m;
    control::take(m, true);
    if (m.tag == control::kFinal) {
      ++finals;
      everyone = std::min(everyone, m.words[0]);
    } else if (m.tag == control::kReleased) {
      ++released;
    } else if (m.tag == control::kCommittedHere) {
      commit_report::received(m.words);
    }
  };
  while (finals + 1 < size_t(g_rt.size)) take_one();
  // Every rank has finished the program: its output is final. A restart after a rank dies from
  // here on replays from the last checkpoint and drops what is recorded as shown.
  const CheckpointDir dir(config().ckpt_dir);
  output::release([&](uint64_t shown, uint64_t showing) {
    files::record_shown_output(dir, g_rt.rank, shown, showing);
  });
  files::record_shown_so_far(dir, g_rt.rank);
  // Older checkpoints are deleted (C3_KEEP) only once every rank has recorded its output as
  // shown: a restart from one of them would otherwise print that output again.
  control::post_to_all(control::kReleased, 0, 0);
  while (released + 1 < size_t(g_rt.size)) take_one();
  control::reap(true);
  if (everyone > 0) learn_global_commit(everyone);
  if (st.mode != Mode::Run) set_mode(Mode::Run);
  complete_orphans(true);
  piggyback::free_cached_types();
  split::teardown();
  free_errhandlers_at_finalize();
  PMPI_Comm_free(&g_rt.control);
  g_rt.finalized = true;
  update_attention();
}

}  // namespace c3::mpi
