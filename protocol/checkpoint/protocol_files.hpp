// The protocol's files in the checkpoint directory: per checkpoint, each rank's log (late
// messages, non-deterministic outcomes, statistics) whose presence is that rank's local commit;
// per rank, how much stdout has been released (so a restart does not show it twice).
#pragma once
#include <cstdint>
#include <string>

#include "store/ckpt_dir.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi::files {

std::string log_path(const CheckpointDir &dir, uint64_t number, int rank);
// Writes and syncs the log of checkpoint `number`; returns its size. Throws c3::Error.
uint64_t write_log(const CheckpointDir &dir, uint64_t number, int rank, int nranks,
                   const CheckpointLog &log);
// Reads and verifies it; throws CorruptCheckpoint / c3::Error.
CheckpointLog read_log(const CheckpointDir &dir, uint64_t number, int rank);
std::string stats_line(const CheckpointLog &log);

std::string encode_snapshot(const ProtocolState &state);
ProtocolState decode_snapshot(const void *data, size_t size, const std::string &path);

// How much of its stdout a rank has shown over the lineage of runs: `shown` bytes for certain,
// and up to `showing` if it died while writing the bytes in between (see output::ShownRecord).
struct ShownOutput {
  uint64_t shown = 0;
  uint64_t showing = 0;
};
void record_shown_output(const CheckpointDir &dir, int rank, uint64_t shown, uint64_t showing);
// Records what this process has shown so far, with no write in flight (output::shown_bytes).
void record_shown_so_far(const CheckpointDir &dir, int rank);
ShownOutput shown_output(const CheckpointDir &dir, int rank);  // zeros when unknown

}  // namespace c3::mpi::files
