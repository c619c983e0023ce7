// Classifying received messages by the sender's epoch colour: intra-epoch, late (sent before the
// sender's checkpoint, received after ours: logged with payload) or early (sent after the
// sender's checkpoint, received before ours: counted, so a restart does not send it again).
// Also the restart's side: late messages served from the log, was-early sends suppressed.
#include "messages/message_registry.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "lifecycle/checkpoint.hpp"
#include "handles/groups.hpp"
#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {
namespace {

bool matches(const LateMessage &m, MPI_Comm comm, int source, int tag) {
  return m.comm == comm_gid(comm) && receive_may_take(source, tag, m.source, m.tag);
}

}  // namespace

int world_rank_of(MPI_Comm comm, int rank) {
  if (comm == MPI_COMM_WORLD) return rank;
  if (const CommInfo *info = comm_info(comm)) {
    // Point-to-point on an intercommunicator names ranks of the remote group.
    const std::vector<int> &group = info->inter ? info->remote_world : info->world;
    return rank >= 0 && size_t(rank) < group.size() ? group[size_t(rank)] : rank;
  }
  static std::map<MPI_Comm, std::vector<int>> known;  // communicators c3 does not track
  auto it = known.find(comm);
  if (it == known.end()) {
    int inter = 0;
    MPI_Group group;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
      PMPI_Comm_remote_group(comm, &group);
    else
      PMPI_Comm_group(comm, &group);
    it = known.emplace(comm, world_ranks(group)).first;
    PMPI_Group_free(&group);
  }
  return rank >= 0 && size_t(rank) < it->second.size() ? it->second[size_t(rank)] : rank;
}

void count_sent(int world_dest) { ++state().sent[size_t(world_dest)]; }

std::string packed_payload(const void *buf, MPI_Datatype type, int64_t bytes) {
  if (piggyback::contiguous(type)) return std::string(static_cast<const char *>(buf), size_t(bytes));
  int size = 0, room = 0, position = 0;
  PMPI_Type_size(type, &size);
  const int count = size > 0 ? int(bytes / size) : 0;
  PMPI_Pack_size(count, type, MPI_COMM_SELF, &room);
  std::string out(size_t(room), '\0');
  PMPI_Pack(buf, count, type, out.data(), room, &position, MPI_COMM_SELF);
  out.resize(size_t(position));
  return out;
}

void deliver_late_message(const LateMessage &m, void *buf, int count, MPI_Datatype type,
                          MPI_Status &st) {
  int size = 0;
  PMPI_Type_size(type, &size);
  const int64_t capacity = int64_t(count) * size, bytes = int64_t(m.payload.size());
  const int64_t taken = std::min(bytes, capacity);
  make_status(st, m.source, m.tag, taken);
  if (bytes > capacity) st.MPI_ERROR = MPI_ERR_TRUNCATE;
  if (piggyback::contiguous(type)) {
    std::memcpy(buf, m.payload.data(), size_t(taken));
  } else if (size > 0) {
    int position = 0;
    PMPI_Unpack(m.payload.data(), int(taken), &position, buf, int(taken / size), type,
                MPI_COMM_SELF);
  }
}

bool message_received(MPI_Comm comm, int source, int tag, int32_t header, const void *buf,
                      MPI_Datatype type, int64_t bytes, bool wildcard, uint64_t posting) {
  ProtocolState &st = state();
  int colour = 0;
  bool sender_logging = false;
  if (!piggyback::read_header(header, colour, sender_logging))
    fatal("a message from rank " + std::to_string(source) +
          " carries no c3 header: build every rank with c3cc");
  const int q = world_rank_of(comm, source);
  const int mine = int(st.epoch & 3);
  // A sender of this epoch that no longer logs (or one already in the next epoch) left NonDet-Log,
  // so every rank has all Checkpoint-Initiated: stop logging before this receive is logged, as
  // that sender's replay will not reproduce what it sends from now on.
  if (st.mode == Mode::NonDetLog && (colour == ((mine + 1) & 3) || (colour == mine && !sender_logging)))
    end_nondet_log();
  ++st.received[size_t(colour)][size_t(q)];
  bool late = false;
  if (colour == ((mine + 1) & 3)) {
    ++st.early[Signature{q, comm_gid(comm), tag}];
    checkpoint::request();  // the sender has started the next checkpoint
  } else if (colour == ((mine + 3) & 3)) {
    if (st.mode != Mode::NonDetLog && st.mode != Mode::RecvOnlyLog)
      fatal("internal error: a message of the previous epoch arrived in mode " +
            std::string(mode_name(st.mode)));
    late = true;
    LateMessage m;
    m.comm = comm_gid(comm);
    m.source = source;
    m.tag = tag;
    m.payload = packed_payload(buf, type, bytes);
    st.log.late_bytes += uint64_t(bytes);
    st.log.late.push_back(std::move(m));
  } else if (colour != mine) {
    fatal("internal error: message from rank " + std::to_string(q) + " is two epochs away");
  }
  // Wildcard matches are non-deterministic: NonDet-Log logs them all; RecvOnly-Log those that
  // still matter to a replay, late messages and messages from senders that still log.
  const bool replay_needs =
      st.mode == Mode::NonDetLog || (st.mode == Mode::RecvOnlyLog && (late || sender_logging));
  if (wildcard && replay_needs) st.log.resolutions[posting] = Resolution{source, tag};
  // The same holds for wildcard probes of this message, whose sender's logging bit only a
  // receive shows. One posted after the probe gets the probed message or a later one of that
  // source and tag, and a sender's later messages carry the bit only if its earlier ones did.
  auto &probes = rt().unconfirmed_probes;
  if (!probes.empty()) {
    size_t kept = 0;
    for (const auto &p : probes) {
      if (p.comm == comm && p.match.source == source && p.match.tag == tag &&
          posting >= p.match.posting) {
        if (st.mode == Mode::RecvOnlyLog && replay_needs) st.log.probe_matches[p.call] = p.match;
      } else {
        probes[kept++] = p;
      }
    }
    probes.resize(kept);
  }
  if (late) maybe_advance();
  return replay_needs;
}

void probe_matched(uint64_t call, MPI_Comm comm, int wanted_source, int wanted_tag, int source,
                   int tag) {
  const ProtocolState &st = state();
  if (st.mode != Mode::RecvOnlyLog) return;
  if (wanted_source != MPI_ANY_SOURCE && wanted_tag != MPI_ANY_TAG) return;
  const ProbeMatch match{st.next_posting, comm_gid(comm), wanted_source, wanted_tag, source, tag};
  rt().unconfirmed_probes.push_back(Runtime::ProbedMatch{call, comm, match});
}

std::optional<PinnedProbe> logged_probe_match(MPI_Comm comm, int wanted_source, int wanted_tag) {
  const ProtocolState &st = state();
  if (st.mode != Mode::Restore || st.replay.probe_matches.empty()) return std::nullopt;
  if (wanted_source != MPI_ANY_SOURCE && wanted_tag != MPI_ANY_TAG) return std::nullopt;
  const uint64_t gid = comm_gid(comm);
  for (const auto &[order, m] : st.replay.probe_matches)
    if (m.posting == st.next_posting && m.comm == gid && m.wanted_source == wanted_source &&
        m.wanted_tag == wanted_tag)
      return PinnedProbe{order, m.source, m.tag};
  return std::nullopt;
}

void probe_match_found(const PinnedProbe &pinned) {
  state().replay.probe_matches.erase(pinned.order);
}

bool suppress_was_early(int world_dest, MPI_Comm comm, int tag) {
  ProtocolState &st = state();
  if (st.was_early.empty()) return false;
  auto it = st.was_early.find(Signature{world_dest, comm_gid(comm), tag});
  if (it == st.was_early.end()) return false;
  if (--it->second == 0) st.was_early.erase(it);
  return true;
}

const LateMessage *peek_late_message(MPI_Comm comm, int source, int tag) {
  for (const LateMessage &m : state().pool)
    if (matches(m, comm, source, tag)) return &m;
  return nullptr;
}

bool take_late_message(MPI_Comm comm, int source, int tag, LateMessage &out) {
  auto &pool = state().pool;
  for (auto it = pool.begin(); it != pool.end(); ++it)
    if (matches(*it, comm, source, tag)) {
      out = std::move(*it);
      pool.erase(it);
      return true;
    }
  return false;
}

}  // namespace c3::mpi
