// The commit step of a checkpoint, behind an interface so the MPI protocol can replace the local
// commit (this process alone) with a coordinated one (every rank's file durable first).
#pragma once
#include <cstdint>

#include "ckpt_dir.hpp"

namespace c3 {

// Decides checkpoint numbers and what "committed" means. The local coordinator (rank 0 of 1)
// commits as soon as its own file is durable; an MPI coordinator commits once every rank's is.
class Coordinator {
 public:
  virtual ~Coordinator() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t nranks() const = 0;
  // Number for the next checkpoint: one above any number in the directory (and above `last`,
  // the newest this lineage wrote).
  virtual uint64_t next_number(const CheckpointDir &dir, uint64_t last) = 0;
  // This rank's file of checkpoint `number` is durable: commit it (or arrange for it to be
  // committed) and drop checkpoints that are no longer needed. Throws c3::Error on failure.
  virtual void commit(const CheckpointDir &dir, uint64_t number, unsigned keep) = 0;
};

Coordinator &local_coordinator();
// Replaces the coordinator (the MPI layer does this at MPI_Init); nullptr restores the local one.
void set_coordinator(Coordinator *coordinator);
Coordinator &coordinator();

}  // namespace c3
