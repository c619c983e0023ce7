// Classifying received messages by the sender's epoch colour (intra-epoch, late, early), the
// late-message pool and was-early suppression at restart, and wildcard probe matches.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>

#include "state/protocol_state.hpp"

namespace c3::mpi {

int world_rank_of(MPI_Comm comm, int rank);
// Whether a receive for (wanted_source, wanted_tag) can take a message from (source, tag).
inline bool receive_may_take(int wanted_source, int wanted_tag, int source, int tag) {
  return (wanted_source == MPI_ANY_SOURCE || wanted_source == source) &&
         (wanted_tag == MPI_ANY_TAG || wanted_tag == tag);
}
// A message arrived for the receive with posting id `posting` (wildcard: the program used
// MPI_ANY_SOURCE or MPI_ANY_TAG). Returns whether the replay needs this receive's outcome (its
// match, a lost cancel): in NonDet-Log, and in RecvOnly-Log when the message was late or its
// sender still logged.
// The payload arrived in `buf` as `bytes` bytes of MPICH's datatype `type` (a late message's is
// logged in signature order: packed, for a derived type).
bool message_received(MPI_Comm comm, int source, int tag, int32_t header, const void *buf,
                      MPI_Datatype type, int64_t bytes, bool wildcard, uint64_t posting);
// The `bytes` a receive of (buf, type) got, as a receive of MPI_PACKED would have them: how
// logged late messages and drained payloads keep them (deliver_late_message unpacks).
std::string packed_payload(const void *buf, MPI_Datatype type, int64_t bytes);
// Restart: a logged late message's payload into a receive of (buf, count, type); the status
// counts what arrived (MPI_ERR_TRUNCATE in MPI_ERROR when it did not fit).
void deliver_late_message(const LateMessage &m, void *buf, int count, MPI_Datatype type,
                          MPI_Status &st);
void count_sent(int world_dest);
// Restart: a send the peer received before its checkpoint is not sent again.
bool suppress_was_early(int world_dest, MPI_Comm comm, int tag);
// Restart: the first late message in the log matching (comm, source, tag); removes it.
bool take_late_message(MPI_Comm comm, int source, int tag, LateMessage &out);
const LateMessage *peek_late_message(MPI_Comm comm, int source, int tag);
// A probe (call number `call`, the program's source and tag) matched (comm, source, tag): in
// RecvOnly-Log a wildcard match is kept until a receive of it shows whether to log it.
void probe_matched(uint64_t call, MPI_Comm comm, int wanted_source, int wanted_tag, int source,
                   int tag);
// Restart: the match logged in RecvOnly-Log for a wildcard probe of (comm, wanted_source,
// wanted_tag) made before the next receive posting, the first of them in the logged order; none
// if there is none. The probe looks for that source and tag only, and hands it to
// probe_match_found once it found the message (a poll may come up empty first, as polls may
// have in the logged run), which uses it up.
struct PinnedProbe {
  uint64_t order;  // its key in CheckpointLog::probe_matches
  int source, tag;
};
std::optional<PinnedProbe> logged_probe_match(MPI_Comm comm, int wanted_source, int wanted_tag);
void probe_match_found(const PinnedProbe &pinned);

}  // namespace c3::mpi
