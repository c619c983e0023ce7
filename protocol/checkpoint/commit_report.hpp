// One line per checkpoint for the whole job: each rank tells rank 0 when its part of a checkpoint
// is committed (how many bytes, when its checkpoint began), and rank 0 prints
// "c3: checkpoint N committed (SIZE in R ranks, T s)" once every rank has, T counted from the
// first rank's start. A rank's own line comes only with C3_VERBOSE=1 (modes/epochs.cpp).
#pragma once
#include <cstdint>
#include <vector>

namespace c3::mpi::commit_report {

// This rank's checkpoint `number` begins.
void started(uint64_t number);
// This rank's part of checkpoint `number` (`bytes` on disk) is committed.
void committed_here(uint64_t number, uint64_t bytes);
// Rank 0: a peer's kCommittedHere {number, bytes, start time}.
void received(const std::vector<uint64_t> &words);

}  // namespace c3::mpi::commit_report
