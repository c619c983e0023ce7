// Which collective results a checkpoint's log must keep (collectives/collective_call.hpp): each
// rank's Checkpoint-Initiated reports, for every communicator it holds, how many collective calls
// it had made on it at its checkpoint; the bound of a communicator is the highest of its members'
// numbers. A process commits a checkpoint only once it has made every call up to each bound and
// every such nonblocking call has completed, so every result a restart will need is in its log.
// The exchange is confined to this interface (a tree could replace the all-to-all).
#pragma once
#include <cstdint>
#include <vector>

#include "state/protocol_state.hpp"

namespace c3::mpi::coll {

// At the checkpoint: what this rank reports (communicators held, their numbers; for one made
// since the previous checkpoint by a call not numbered on a parent, its members too).
std::vector<uint64_t> make_report();
// A peer's report of this epoch (epoch + 1: `ahead`, kept for the next checkpoint).
void note_report(int source, const uint64_t *words, size_t n, bool ahead);
void new_epoch();  // at the checkpoint: the reports of the next epoch become current
// Every collective result this rank must keep for the checkpoint in progress is logged.
bool settled();
// At the local commit: drops logged results no restart will need, and ghosts every member freed.
void trim_log(CheckpointLog &log);

}  // namespace c3::mpi::coll
