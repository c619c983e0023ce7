// What differs between one process and an MPI job: checkpoint numbers, when a checkpoint is
// taken and committed, which checkpoint a restart uses. The local coordinator (rank 0 of 1) is
// the default; the MPI protocol layer installs its own before main (protocol/mpi_coordinator).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "store/ckpt_dir.hpp"
#include "lifecycle/config.hpp"

namespace c3 {

class CheckpointReader;

class Coordinator {
 public:
  virtual ~Coordinator() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t nranks() const = 0;

  // A pragma site was reached (`interval_due`: this process's C3_INTERVAL has elapsed). Returns
  // whether to checkpoint here.
  virtual bool wants_checkpoint(bool forced, bool interval_due) { return forced || interval_due; }
  // Why no checkpoint can be taken here now, or "" when one can.
  virtual std::string refusal() { return {}; }
  // Number for the next checkpoint: one above any number in the directory (and above `last`,
  // the newest this lineage wrote).
  virtual uint64_t next_number(const CheckpointDir &dir, uint64_t last) = 0;
  // The coordinator's own state at the checkpoint (PROTOCOL section; empty: no section).
  virtual std::string snapshot(uint64_t /*number*/) { return {}; }
  // This rank's file of checkpoint `number` is durable. Returns true when the checkpoint is
  // committed now (the caller releases output and reports it); false when the coordinator
  // commits it later and does both itself. Throws c3::Error on failure.
  virtual bool file_written(const CheckpointDir &dir, uint64_t number, unsigned keep) = 0;
  // Writing it failed after snapshot() (the error is reported already).
  virtual void file_failed(uint64_t /*number*/) {}

  // Restart, before anything is read: an MPI job starts MPI here.
  virtual void restart_begin(const Config & /*config*/) {}
  // Whether restart_candidates replaces the local choice (committed checkpoints newest first).
  virtual bool chooses_restart() const { return false; }
  // The checkpoints to restart from, best first, whose files every rank has (their structure
  // checked; the payloads are verified while loading). Ends the process with a message when
  // there is none.
  virtual std::vector<uint64_t> restart_candidates(const CheckpointDir & /*dir*/,
                                                   const Config & /*config*/) {
    return {};
  }
  // Every process tried to load the same checkpoint (`loaded`: this one could): the ranks that
  // could not, none when all loaded it.
  virtual std::vector<uint32_t> ranks_that_failed_to_load(bool loaded) {
    return loaded ? std::vector<uint32_t>{} : std::vector<uint32_t>{rank()};
  }
  // No checkpoint left to restart from: ends every process of the job with `message` (shown
  // once, and by each process whose own file was damaged: `mine`).
  [[noreturn]] virtual void give_up_restart(const std::string &message, bool mine);
  // The checkpoint chosen for the restart, after the heap was loaded (PROTOCOL section).
  virtual void restore(const CheckpointReader & /*reader*/, uint64_t /*number*/) {}
  // How many of the `held` stdout bytes saved in checkpoint `number` the killed run had already
  // shown (stdout not a regular file; a regular file is cut back instead).
  virtual uint64_t held_output_shown(const CheckpointDir &dir, uint64_t number, uint64_t held);
  // The replay reached the checkpoint's pragma: the program runs on from here.
  virtual void replay_finished() {}
};

Coordinator &local_coordinator();
// Replaces the coordinator; nullptr restores the local one.
void set_coordinator(Coordinator *coordinator);
Coordinator &coordinator();

}  // namespace c3
