// The MPI job's Coordinator (runtime/lifecycle/coordinator.hpp): when a rank checkpoints, what its state
// file holds of the protocol, and which checkpoint a restart uses. Installed before main, so a
// restart can start MPI before it reads any file.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "lifecycle/checkpoint.hpp"
#include "checkpoint/commit_report.hpp"
#include "checkpoint/protocol_files.hpp"
#include "store/ckpt_file.hpp"
#include "lifecycle/coordinator.hpp"
#include "handles/recreate.hpp"
#include "support/error.hpp"
#include "layer/idle_wait.hpp"
#include "layer/layer.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "io/output_commit.hpp"

namespace c3::mpi {

void attach_bsend_buffer(int size);

namespace {

constexpr int kMaxCandidates = 32;

class MpiCoordinator final : public Coordinator {
 public:
  uint32_t rank() const override { return uint32_t(rt().rank); }
  uint32_t nranks() const override { return uint32_t(rt().size); }

  bool wants_checkpoint(bool forced, bool due) override {
    Runtime &r = rt();
    if (!r.initialized || r.finalized) return forced || due;  // refusal() says why not
    // An unforced site that is not due looks for other ranks' checkpoints at most every
    // millisecond: a vDSO clock read per visit, one probe per millisecond.
    if (!forced && !due && state().mode == Mode::Run) {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
      uint64_t now = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
      if (now < next_site_poll_ns_) return false;
      next_site_poll_ns_ = now + 1000000;
    }
    Entry entry;
    progress();
    ProtocolState &st = state();
    bool peer_ahead = std::any_of(st.ahead.begin(), st.ahead.end(), [](int64_t a) { return a >= 0; });
    if (st.mode != Mode::Run) {
      // The previous checkpoint is not committed here yet: the next pragma in Run mode takes it.
      if (forced || due || peer_ahead) checkpoint::request();
      return false;
    }
    return forced || due || peer_ahead;
  }

  std::string refusal() override {
    Runtime &r = rt();
    if (!r.initialized) return "MPI is not initialized yet (an MPI program checkpoints between MPI_Init and MPI_Finalize)";
    if (r.finalized) return "MPI is finalized already";
    if (r.tainted_by)
      return std::string("the program called ") + r.tainted_by +
             ", whose effects c3 cannot restore yet";
    if (!r.message_comms.empty() || !r.held_messages.empty())
      return "a message matched by MPI_Mprobe/MPI_Improbe has not been received yet";
    return {};
  }

  uint64_t next_number(const CheckpointDir &, uint64_t) override {
    return checkpoint_number(state().epoch + 1);
  }

  std::string snapshot(uint64_t number) override {
    commit_report::started(number);
    InsideLayer inside;
    split::finish_pending_payloads();
    capture_handle_properties();
    enter_checkpoint();
    std::string bytes = files::encode_snapshot(state());
    state().early.clear();  // those senders' next messages are intra-epoch now
    return bytes;
  }

  bool file_written(const CheckpointDir &dir, uint64_t, unsigned) override {
    Entry entry;
    // Opens the record now that the directory exists: a later release is then followed by
    // its record within one system call.
    files::record_shown_so_far(dir, rt().rank);
    send_checkpoint_initiated();
    return false;
  }

  void file_failed(uint64_t) override {
    // The epoch advanced: tell the peers as usual; this rank never commits it.
    state().failed_epoch = state().epoch;
    Entry entry;
    send_checkpoint_initiated();
  }

  void restart_begin(const Config &) override {
    int provided = 0;
    init_mpi(nullptr, nullptr, &provided);
    setup_after_init(true);
  }

  bool chooses_restart() const override { return rt().initialized; }

  std::vector<uint64_t> restart_candidates(const CheckpointDir &dir, const Config &cfg) override {
    // Each rank: the checkpoints whose state file and log it can read and verify, newest first.
    std::vector<uint64_t> mine(kMaxCandidates + 1, 0);
    std::vector<CheckpointEntry> entries;
    try {
      entries = dir.list();
    } catch (const Error &) {
    }
    size_t k = 1;
    std::string damaged;
    uint64_t damaged_number = 0;
    for (auto it = entries.rbegin(); it != entries.rend() && k <= kMaxCandidates; ++it) {
      try {
        // Its structure only: the payloads are verified while the chosen one is loaded, so the
        // large file is read once (ranks_that_failed_to_load agrees on the outcome).
        CheckpointReader state_file(dir.rank_file(it->number, rank()), Verify::Structure);
        if (mine[0] == 0) mine[0] = state_file.header().nranks;
        CheckpointReader log_file(files::log_path(dir, it->number, rt().rank));
        mine[k++] = it->number;
      } catch (const CorruptCheckpoint &e) {
        if (damaged.empty()) damaged_number = it->number;
        if (damaged.empty()) damaged = "checkpoint " + std::to_string(it->number) + " is damaged (" + e.what() + ")";
      } catch (const Error &) {
        // Not written or not committed by this rank.
      }
    }
    std::vector<uint64_t> all(mine.size() * size_t(rt().size));
    // Ranks that verified their files first wait asleep for those still reading theirs.
    MPI_Request agreed = MPI_REQUEST_NULL;
    PMPI_Iallgather(mine.data(), int(mine.size()), MPI_UINT64_T, all.data(), int(mine.size()),
                    MPI_UINT64_T, rt().control, &agreed);
    idle_wait(agreed, MPI_STATUS_IGNORE);
    std::set<uint64_t> common;
    for (int q = 0; q < rt().size; ++q) {
      const uint64_t *row = &all[size_t(q) * mine.size()];
      if (row[0] != 0 && row[0] != uint64_t(rt().size))
        fatal_everywhere("the checkpoints in " + dir.root() + " were written by " + std::to_string(row[0]) +
              " processes, this run has " + std::to_string(rt().size) +
              "; restart with the same number of processes");
      std::set<uint64_t> have(row + 1, row + mine.size());
      have.erase(0);
      if (q == 0) {
        common = have;
      } else {
        std::set<uint64_t> both;
        for (uint64_t n : have)
          if (common.count(n)) both.insert(n);
        common = both;
      }
    }
    if (!damaged.empty() && !common.empty() && damaged_number > *common.rbegin())
      std::fprintf(stderr, "c3: warning: %s; falling back to checkpoint %lu\n", damaged.c_str(),
                   static_cast<unsigned long>(*common.rbegin()));
    std::vector<uint64_t> out(common.rbegin(), common.rend());
    if (cfg.restart == RestartMode::Number) {
      if (!common.count(cfg.restart_number))
        fatal_everywhere("checkpoint " + std::to_string(cfg.restart_number) + " in " + dir.root() +
                         " is not committed by every rank");
      return {cfg.restart_number};
    }
    if (out.empty() && cfg.restart == RestartMode::Auto)
      files::record_shown_output(dir, rt().rank, 0, 0);  // a fresh lineage: nothing shown yet
    if (out.empty() && cfg.restart != RestartMode::Auto)
      fatal_everywhere(
          (mine.size() > 1 && std::any_of(mine.begin() + 1, mine.end(), [](uint64_t n) { return n != 0; })
               ? "no checkpoint in " + dir.root() + " is committed by every rank"
               : "nothing to restart from: " + dir.why_nothing_committed()) +
          (damaged.empty() ? std::string() : "; " + damaged));
    return out;
  }

  std::vector<uint32_t> ranks_that_failed_to_load(bool loaded) override {
    const int mine = loaded ? 1 : 0;
    std::vector<int> all(size_t(rt().size), 0);
    MPI_Request agreed = MPI_REQUEST_NULL;
    PMPI_Iallgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, rt().control, &agreed);
    idle_wait(agreed, MPI_STATUS_IGNORE);
    std::vector<uint32_t> failed;
    for (int q = 0; q < rt().size; ++q)
      if (!all[size_t(q)]) failed.push_back(uint32_t(q));
    return failed;
  }

  [[noreturn]] void give_up_restart(const std::string &message, bool mine) override {
    if (mine && rt().rank != 0) std::fprintf(stderr, "c3: error: rank %d: %s\n", rt().rank, message.c_str());
    fatal_everywhere(message);
  }

  void restore(const CheckpointReader &reader, uint64_t number) override {
    const SectionView &s = reader.section(SectionKind::Protocol);
    ProtocolState saved = files::decode_snapshot(s.data, s.size, reader.path());
    ProtocolState &st = state();
    const uint64_t base = st.number_base;  // agreed at restart_begin: above all numbers
    if (saved.sent.size() != size_t(rt().size)) fatal("checkpoint " + std::to_string(number) + " does not fit this job");
    st = std::move(saved);
    st.number_base = std::max(base, number) - st.epoch;
    st.initiated.assign(size_t(rt().size), 1);
    st.ahead.assign(size_t(rt().size), -1);
    st.locally_committed = st.globally_committed = number;
    CheckpointDir dir(config().ckpt_dir);
    st.replay = files::read_log(dir, number, rt().rank);
    recreate_handles(st.replay);
    requests_restored();
    st.pool.assign(st.replay.late.begin(), st.replay.late.end());
    st.replay.late.clear();
    exchange_early_registries();
    st.log = CheckpointLog{};
    // The restart shows all output up to the checkpoint (again, where needed).
    output::set_released_bytes(st.output_at_snapshot);
    set_mode(Mode::Restore);
  }

  uint64_t held_output_shown(const CheckpointDir &dir, uint64_t, uint64_t held) override {
    const files::ShownOutput record = files::shown_output(dir, rt().rank);
    // Killed between writing bytes to stdout and recording them: no one can tell whether they
    // reached it. They are shown again, and the user is told.
    if (record.showing > record.shown)
      std::fprintf(stderr,
                   "c3: warning: rank %d was killed while showing %lu bytes of its output "
                   "(bytes %lu to %lu); they may appear twice\n",
                   rt().rank, static_cast<unsigned long>(record.showing - record.shown),
                   static_cast<unsigned long>(record.shown),
                   static_cast<unsigned long>(record.showing));
    const uint64_t released = record.shown;
    uint64_t before = state().output_released_at_snapshot;
    // Shown beyond this checkpoint (it was damaged and an older one is used): the replayed run
    // prints those bytes again, and they are dropped.
    if (released > state().output_at_snapshot)
      output::discard_next(released - state().output_at_snapshot);
    return released > before ? std::min(held, released - before) : 0;
  }

  void replay_finished() override {
    Entry entry;
    // All output up to the checkpoint is shown now (again where needed).
    CheckpointDir dir(config().ckpt_dir);
    // (Output an earlier run showed beyond the checkpoint is still counted: it will be dropped.)
    files::record_shown_so_far(dir, rt().rank);
    rt().app_initialized = true;
    if (state().bsend_user_buffer) attach_bsend_buffer(state().bsend_user_size);
    repost_after_restart();
    maybe_end_restore();
  }

 private:
  uint64_t next_site_poll_ns_ = 0;

  // Early messages a rank received before its checkpoint: their senders must not send them
  // again. Each rank tells each sender which (comm, tag) channels and how many.
  void exchange_early_registries() {
    ProtocolState &st = state();
    const int n = rt().size;
    const size_t un = static_cast<size_t>(n);
    std::vector<std::vector<uint64_t>> out(un);  // per sender: {communicator gid, tag, count}...
    for (const auto &[sig, count] : st.early)
      out[size_t(sig.peer)].insert(out[size_t(sig.peer)].end(),
                                   {sig.comm, uint64_t(uint32_t(sig.tag)), count});
    std::vector<int> send_counts(un), recv_counts(un), sdispl(un), rdispl(un);
    std::vector<uint64_t> flat;
    for (int q = 0; q < n; ++q) {
      sdispl[size_t(q)] = int(flat.size());
      send_counts[size_t(q)] = int(out[size_t(q)].size());
      flat.insert(flat.end(), out[size_t(q)].begin(), out[size_t(q)].end());
    }
    // The first exchange after each rank restored its memory: the quicker ones wait asleep.
    MPI_Request counts = MPI_REQUEST_NULL;
    PMPI_Ialltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, rt().control,
                   &counts);
    idle_wait(counts, MPI_STATUS_IGNORE);
    int total = 0;
    for (int q = 0; q < n; ++q) {
      rdispl[size_t(q)] = total;
      total += recv_counts[size_t(q)];
    }
    std::vector<uint64_t> in(static_cast<size_t>(std::max(total, 1)));
    flat.resize(std::max<size_t>(flat.size(), 1));
    PMPI_Alltoallv(flat.data(), send_counts.data(), sdispl.data(), MPI_UINT64_T, in.data(),
                   recv_counts.data(), rdispl.data(), MPI_UINT64_T, rt().control);
    st.was_early.clear();
    for (int q = 0; q < n; ++q)
      for (int i = rdispl[size_t(q)]; i + 2 < rdispl[size_t(q)] + recv_counts[size_t(q)]; i += 3)
        st.was_early[Signature{q, in[size_t(i)], int(uint32_t(in[size_t(i) + 1]))}] +=
            in[size_t(i) + 2];
    st.early.clear();
  }
};

MpiCoordinator g_coordinator;

}  // namespace

void link_coordinator() {}  // referenced by epochs.cpp, so this file (and g_install) is linked

namespace {

struct Install {
  Install() { set_coordinator(&g_coordinator); }
} g_install;

}  // namespace
}  // namespace c3::mpi
