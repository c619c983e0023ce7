// MPI_Mprobe/MPI_Improbe and the receives of the messages they match. A matched message is
// MPICH's or held by c3 until received; no checkpoint is taken while one is outstanding
// (refusal()).
#include <algorithm>
#include <cstring>
#include <map>

#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"
#include "mpi_hooks.hpp"
#include "nondet/nondet.hpp"

namespace c3::mpi {
namespace {

// Handles of the messages c3 holds for the program (Runtime::held_messages): object type
// REQUEST, bit 25 set and bit 24 clear: never an MPICH handle, never a c3 request handle, never a
// drained split message's (split_transfer.cpp).
constexpr uint32_t kHeldMessage = (0xbu << 26) | (1u << 25);
uint32_t g_next_held = 1;

MPI_Message hold(LateMessage m) {
  const auto handle = MPI_Message(kHeldMessage | (g_next_held++ & ((1u << 24) - 1)));
  rt().held_messages[handle] = std::move(m);
  return handle;
}

// While logging, a matched message is received at once, so it is logged in matching order: after
// the messages of receives posted before the probe (MPI gave them theirs first) and before those
// of receives posted later, which may complete before the program's MPI_Mrecv. A restart's probe
// takes the first logged message of its source and tag that no earlier receive took.
void receive_while_logging(CommArg comm, MPI_Message *message, const MPI_Status &probed,
                           MPI_Count bytes) {
  settle_earlier_matches(comm.app, state().next_posting, probed.MPI_SOURCE, probed.MPI_TAG);
  std::string payload(size_t(bytes), '\0');
  const uint64_t posting = state().next_posting;  // the program's MPI_Mrecv takes this number
  MPI_Status st{};
  receive_matched(payload.data(), int(bytes), TypeArg{MPI_BYTE, MPI_BYTE}, message, nullptr, &st);
  state().next_posting = posting;
  LateMessage m;
  m.comm = comm_gid(comm.app);
  m.source = probed.MPI_SOURCE;
  m.tag = probed.MPI_TAG;
  m.payload = std::move(payload);
  *message = hold(std::move(m));
}

int matching_probe(int source, int tag, CommArg comm, bool blocking, int *flag,
                   MPI_Message *message, MPI_Status *status) {
  uint64_t call = next_call();
  MPI_Status st{};
  if (source == MPI_PROC_NULL) {
    make_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    *message = MPI_MESSAGE_NO_PROC;
    if (flag) *flag = 1;
    copy_status_out(status, st);
    return MPI_SUCCESS;
  }
  int found = 0;
  if (replaying(call)) {
    const Outcome &o = replayed(call);
    if (!o.flag && !blocking) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    source = o.source;  // the logged match, found again by a blocking probe
    tag = o.tag;
    blocking = true;
  }
  const int wanted_source = source, wanted_tag = tag;
  const std::optional<PinnedProbe> pinned = logged_probe_match(comm.app, source, tag);
  if (pinned) {
    source = pinned->source;  // that message or none: its sender sends it again
    tag = pinned->tag;
  }
  LateMessage logged;
  if (take_late_message(comm.app, source, tag, logged)) {
    if (pinned) probe_match_found(*pinned);
    make_status(st, logged.source, logged.tag, int64_t(logged.payload.size()));
    *message = hold(std::move(logged));
    if (flag) *flag = 1;
    copy_status_out(status, st);
    return MPI_SUCCESS;
  }
  if (blocking) {
    split::mprobe_blocking(source, tag, comm.real, message, st);
    found = 1;
  } else {
    split::progress();  // a polling program lets MPI progress
    PMPI_Improbe(source, tag, comm.real, &found, message, &st);
  }
  MPI_Count bytes = 0;
  if (found) {
    if (!piggyback::fix_probe_status(st)) split::match_payload(comm, message, st);
    PMPI_Get_elements_x(&st, MPI_BYTE, &bytes);
    rt().message_comms[*message] = comm.app;
  }
  if (flag) *flag = found;
  if (found && pinned) probe_match_found(*pinned);
  if (found) before_logging_probe();
  if (found) probe_matched(call, comm.app, wanted_source, wanted_tag, st.MPI_SOURCE, st.MPI_TAG);
  log_outcome(call, found, {}, found ? st.MPI_SOURCE : 0, found ? st.MPI_TAG : 0, int64_t(bytes));
  if (found && (state().mode == Mode::NonDetLog || state().mode == Mode::RecvOnlyLog))
    receive_while_logging(comm, message, st, bytes);
  if (found) copy_status_out(status, st);
  return MPI_SUCCESS;
}

}  // namespace

int on_Mprobe(int source, int tag, CommArg comm, MPI_Message *message,
              MPI_Status *status) noexcept {
  return matching_probe(source, tag, comm, true, nullptr, message, status);
}

int on_Improbe(int source, int tag, CommArg comm, int *flag, MPI_Message *message,
               MPI_Status *status) noexcept {
  return matching_probe(source, tag, comm, false, flag, message, status);
}

namespace {

// A message c3 holds: copied out at once, as MPI would have delivered it.
bool receive_held(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Status &st) {
  auto &held = rt().held_messages;
  auto it = held.find(*message);
  if (it == held.end()) return false;
  ++state().next_posting;  // a receive like any other: later postings keep their numbers
  deliver_late_message(it->second, buf, count, datatype, st);
  held.erase(it);
  *message = MPI_MESSAGE_NULL;
  return true;
}

}  // namespace

int on_Mrecv(void *buf, int count, TypeArg datatype, MPI_Message *message,
             MPI_Status *status) noexcept {
  MPI_Status st{};
  if (receive_held(buf, count, datatype.real, message, st)) {
    const int rc = st.MPI_ERROR;
    copy_status_out(status, st);
    return rc;
  }
  return receive_matched(buf, count, datatype, message, nullptr, status);
}

int on_Imrecv(void *buf, int count, TypeArg datatype, MPI_Message *message,
              MPI_Request *request) noexcept {
  MPI_Status st{};
  if (receive_held(buf, count, datatype.real, message, st)) {
    Request *r = nullptr;
    *request = new_request(Request::Kind::Recv, &r);
    r->active = true;
    r->done = true;
    std::memcpy(r->status.words, &st, sizeof st);
    return MPI_SUCCESS;
  }
  return receive_matched(buf, count, datatype, message, request, MPI_STATUS_IGNORE);
}

}  // namespace c3::mpi
