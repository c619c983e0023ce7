// Classifying received messages by the sender's colour (intra-epoch, early, late) and logging
// wildcard matches, called directly as complete_real_request does; the restart's late-message
// pool and was-early suppression.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "messages/piggyback.hpp"
#include "unit_support.hpp"

using namespace c3::mpi;
using c3::mpi::test::StateGuard;
namespace pb = c3::mpi::piggyback;

namespace {

// This rank in epoch 5 (colour 1), in `mode`, waiting for peers' Checkpoint-Initiated so a
// late message cannot advance the mode (that would commit a log in the working directory).
void in_epoch_five(Mode mode) {
  ProtocolState &st = state();
  st.epoch = 5;
  st.mode = mode;
  for (auto &r : st.received) std::fill(r.begin(), r.end(), 0);
  std::fill(st.initiated.begin(), st.initiated.end(), 0);
  st.early.clear();
  st.log = CheckpointLog{};
}

// Messages a rank sends itself with the previous epoch's colour while in RecvOnly-Log: late.
struct LateToItself {
  StateGuard guard;
  int me = 0;
  int32_t late = pb::make_header(4, false);
  LateToItself() {
    in_epoch_five(Mode::RecvOnlyLog);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
  }
};

const std::string kPayload("\x01\0\x02\0late", 8);

void receive(uint64_t sender_epoch, bool sender_logging, bool wildcard, uint64_t posting,
             int tag = 4) {
  message_received(MPI_COMM_WORLD, 0, tag, pb::make_header(sender_epoch, sender_logging),
                   kPayload.data(), MPI_BYTE, int64_t(kPayload.size()), wildcard, posting);
}

}  // namespace

TEST_CASE("message registry: intra-epoch, early and late messages", "[registry]") {
  StateGuard guard;
  ProtocolState &st = state();
  in_epoch_five(Mode::NonDetLog);

  receive(5, true, false, 1);  // same colour: intra-epoch
  CHECK(st.received[1][0] == 1);
  CHECK(st.early.empty());
  CHECK(st.log.late.empty());

  CHECK(st.mode == Mode::NonDetLog);
  receive(6, true, false, 2, 9);  // the sender is one checkpoint ahead: early
  // ... so every rank has all Checkpoint-Initiated: logging ends
  CHECK(st.mode == Mode::RecvOnlyLog);
  receive(10, false, false, 3, 9);
  CHECK(st.received[2][0] == 2);
  CHECK(st.early.size() == 1);
  CHECK(st.early[Signature{0, kWorldGid, 9}] == 2);
  CHECK(st.log.late.empty());

  receive(4, false, false, 4, 12);  // sent before the sender's checkpoint: late, logged
  CHECK(st.received[0][0] == 1);
  REQUIRE(st.log.late.size() == 1);
  CHECK(st.log.late[0].payload == kPayload);
  CHECK(st.log.late[0].source == 0);
  CHECK(st.log.late[0].tag == 12);
  CHECK(st.log.late[0].comm == kWorldGid);
  CHECK(st.log.late_bytes == kPayload.size());
  CHECK(st.log.resolutions.empty());  // none of these was a wildcard receive
  CHECK(st.mode == Mode::RecvOnlyLog);
}

TEST_CASE("message registry: which wildcard matches are logged", "[registry]") {
  StateGuard guard;
  ProtocolState &st = state();
  SECTION("Run: none") {
    in_epoch_five(Mode::Run);
    receive(5, false, true, 10);
    receive(5, true, true, 11);
    CHECK(st.log.resolutions.empty());
  }
  SECTION("NonDet-Log: all") {
    in_epoch_five(Mode::NonDetLog);
    receive(5, true, true, 10, 3);
    receive(4, false, true, 11, 4);  // late
    receive(5, true, false, 12);  // not a wildcard
    REQUIRE(st.log.resolutions.size() == 2);
    CHECK(st.log.resolutions[10].source == 0);
    CHECK(st.log.resolutions[10].tag == 3);
    CHECK(st.log.resolutions[11].tag == 4);
    CHECK(st.mode == Mode::NonDetLog);
  }
  SECTION("NonDet-Log ends at a message from a sender of this epoch that stopped logging") {
    in_epoch_five(Mode::NonDetLog);
    receive(5, true, true, 30);
    const uint64_t running_call = st.next_call++;  // a hook (a test, say) is running
    ++g_depth;
    g_hook_first_call = running_call;
    receive(5, false, true, 31);
    --g_depth;
    CHECK(st.mode == Mode::RecvOnlyLog);
    CHECK(st.log.resolutions.count(30) == 1);
    CHECK(st.log.resolutions.count(31) == 0);  // its sender's replay will not resend it
    CHECK(st.log.calls_logged_until == running_call);  // the running call is not logged
  }
  SECTION("NonDet-Log ends at an early message") {
    in_epoch_five(Mode::NonDetLog);
    receive(6, true, true, 40);
    CHECK(st.mode == Mode::RecvOnlyLog);
    CHECK(st.log.calls_logged_until == st.next_call);
  }
  SECTION("RecvOnly-Log: late messages and senders that still log") {
    in_epoch_five(Mode::RecvOnlyLog);
    receive(5, false, true, 20);  // intra-epoch from a sender done logging: deterministic again
    receive(5, true, true, 21);
    receive(4, false, true, 22);
    receive(6, false, true, 23);
    CHECK(st.log.resolutions.count(20) == 0);
    CHECK(st.log.resolutions.count(21) == 1);
    CHECK(st.log.resolutions.count(22) == 1);
    CHECK(st.log.resolutions.count(23) == 0);
    CHECK(st.log.late.size() == 1);
  }
}

// A probe does not see the logging bit; the receive of what it matched does. In RecvOnly-Log
// a wildcard probe's match is logged once that receive shows the sender still logged (or the
// message was late), so the replay gives the probe the same message.
TEST_CASE("message registry: wildcard probe matches in RecvOnly-Log wait for their receive",
          "[registry]") {
  StateGuard guard;
  ProtocolState &st = state();
  rt().unconfirmed_probes.clear();
  SECTION("only wildcard probes are kept, and only in RecvOnly-Log") {
    in_epoch_five(Mode::NonDetLog);  // there the probe's outcome itself is logged
    probe_matched(30, MPI_COMM_WORLD, MPI_ANY_SOURCE, 4, 0, 4);
    CHECK(rt().unconfirmed_probes.empty());
    in_epoch_five(Mode::RecvOnlyLog);
    probe_matched(31, MPI_COMM_WORLD, 0, 4, 0, 4);  // nothing to choose
    CHECK(rt().unconfirmed_probes.empty());
  }
  SECTION("a receive from a sender that still logs confirms every probe of its channel") {
    in_epoch_five(Mode::RecvOnlyLog);
    st.next_posting = 5;  // the probes come before receive 5
    probe_matched(40, MPI_COMM_WORLD, MPI_ANY_SOURCE, 4, 0, 4);
    probe_matched(41, MPI_COMM_WORLD, 0, MPI_ANY_TAG, 0, 4);  // the same message, polled again
    probe_matched(42, MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 9);  // another channel
    // A receive posted before the probes got an earlier message of the channel: no proof.
    receive(5, true, false, 3, 4);
    CHECK(st.log.probe_matches.empty());
    CHECK(rt().unconfirmed_probes.size() == 3);
    receive(5, true, false, 7, 4);
    REQUIRE(st.log.probe_matches.size() == 2);
    const ProbeMatch &first = st.log.probe_matches[40], &second = st.log.probe_matches[41];
    CHECK(first.posting == 5);
    CHECK(first.comm == comm_gid(MPI_COMM_WORLD));
    CHECK(first.wanted_source == MPI_ANY_SOURCE);
    CHECK(first.wanted_tag == 4);
    CHECK(first.source == 0);
    CHECK(first.tag == 4);
    CHECK(second.wanted_source == 0);
    CHECK(second.wanted_tag == MPI_ANY_TAG);
    CHECK(second.tag == 4);
    REQUIRE(rt().unconfirmed_probes.size() == 1);
    CHECK(rt().unconfirmed_probes[0].call == 42);
    CHECK(st.log.logged_events() == 2);
    receive(5, false, false, 8, 9);  // its sender no longer logs: it replays nothing of it
    CHECK(st.log.probe_matches.count(42) == 0);
    CHECK(rt().unconfirmed_probes.empty());
  }
  SECTION("a late message confirms too") {
    in_epoch_five(Mode::RecvOnlyLog);
    st.next_posting = 9;
    probe_matched(50, MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 12);
    receive(4, false, false, 9, 12);
    CHECK(st.log.probe_matches.count(50) == 1);
    CHECK(st.log.late.size() == 1);
  }
  // Call numbers are not what a restart reproduces (RecvOnly-Log does not log polls); the
  // receive posting the probe came before and the probe's arguments are.
  SECTION("the restart finds a logged match by posting and arguments, in Restore only") {
    in_epoch_five(Mode::Restore);
    const uint64_t world = comm_gid(MPI_COMM_WORLD);
    st.replay.probe_matches[60] = ProbeMatch{7, world, MPI_ANY_SOURCE, MPI_ANY_TAG, 3, 14};
    st.replay.probe_matches[61] = ProbeMatch{7, world, MPI_ANY_SOURCE, MPI_ANY_TAG, 2, 15};
    st.replay.probe_matches[62] = ProbeMatch{7, world, 1, MPI_ANY_TAG, 1, 16};
    st.next_posting = 6;  // before the receive they came before
    CHECK_FALSE(logged_probe_match(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG));
    st.next_posting = 7;
    CHECK_FALSE(logged_probe_match(MPI_COMM_WORLD, 1, 16));  // no wildcard, no choice
    CHECK_FALSE(logged_probe_match(MPI_COMM_WORLD, MPI_ANY_SOURCE, 16));
    CHECK_FALSE(logged_probe_match(MPI_COMM_SELF, MPI_ANY_SOURCE, MPI_ANY_TAG));
    std::optional<PinnedProbe> m = logged_probe_match(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG);
    REQUIRE(m);
    CHECK(m->order == 60);  // the first in the logged order
    CHECK(m->source == 3);
    CHECK(m->tag == 14);
    // A probe that found nothing leaves it; one that found it uses it up.
    CHECK(logged_probe_match(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG)->order == 60);
    probe_match_found(*m);
    m = logged_probe_match(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG);
    REQUIRE(m);
    CHECK(m->source == 2);
    CHECK(m->tag == 15);
    m = logged_probe_match(MPI_COMM_WORLD, 1, MPI_ANY_TAG);
    REQUIRE(m);
    CHECK(m->tag == 16);
    CHECK(st.replay.probe_matches.size() == 2);
    st.mode = Mode::Run;
    CHECK_FALSE(logged_probe_match(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG));
  }
  rt().unconfirmed_probes.clear();
}

TEST_CASE("message registry: impossible messages end the process", "[registry]") {
  struct Case {
    const char *scenario, *message;
  };
  for (Case c : {Case{"receive-two-epochs-away", "is two epochs away"},
                 Case{"receive-late-in-run", "a message of the previous epoch arrived in mode Run"},
                 Case{"receive-foreign-header", "carries no c3 header"}}) {
    INFO(c.scenario);
    c3::mpi::test::ChildResult r = c3::mpi::test::run_child(c.scenario);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.message));
  }
}

TEST_CASE("message registry: the restart's late messages and suppressed sends", "[registry]") {
  StateGuard guard;
  ProtocolState &st = state();
  st.mode = Mode::Restore;
  st.replay = CheckpointLog{};
  st.next_call = 1;
  st.pool.clear();
  st.was_early.clear();
  LateMessage a, b, c;
  a.comm = kWorldGid, a.source = 1, a.tag = 5, a.payload = "a";
  b.comm = kWorldGid, b.source = 2, b.tag = 5, b.payload = "b";
  c.comm = kSelfGid, c.source = 0, c.tag = 6, c.payload = "c";
  st.pool = {a, b, c};
  st.was_early[Signature{1, kWorldGid, 8}] = 2;

  CHECK(peek_late_message(MPI_COMM_WORLD, 3, 5) == nullptr);
  CHECK(peek_late_message(MPI_COMM_SELF, 0, 5) == nullptr);
  const LateMessage *any = peek_late_message(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG);
  REQUIRE(any != nullptr);
  CHECK(any->payload == "a");  // logged order
  LateMessage out;
  CHECK(take_late_message(MPI_COMM_WORLD, 2, MPI_ANY_TAG, out));
  CHECK(out.payload == "b");
  CHECK_FALSE(take_late_message(MPI_COMM_WORLD, 2, 5, out));
  CHECK(take_late_message(MPI_COMM_WORLD, MPI_ANY_SOURCE, 5, out));
  CHECK(out.payload == "a");
  CHECK(take_late_message(MPI_COMM_SELF, MPI_ANY_SOURCE, 6, out));
  CHECK(st.pool.empty());
  CHECK(st.mode == Mode::Restore);  // sends still to suppress

  CHECK_FALSE(suppress_was_early(1, MPI_COMM_WORLD, 9));
  CHECK_FALSE(suppress_was_early(0, MPI_COMM_WORLD, 8));
  CHECK(suppress_was_early(1, MPI_COMM_WORLD, 8));
  CHECK(st.mode == Mode::Restore);
  CHECK(suppress_was_early(1, MPI_COMM_WORLD, 8));
  CHECK_FALSE(suppress_was_early(1, MPI_COMM_WORLD, 8));
  CHECK(st.mode == Mode::Restore);  // the restore ends between hooks, not in here
  maybe_end_restore();
  CHECK(st.mode == Mode::Run);  // nothing left to restore
}

// Late messages of one (source, tag) are handed to receives at restart in log order, so they
// must be logged in matching order even when a later receive completes first: here the first
// message is split (its payload completes after its header) and the program waits for the
// second receive first. Messages to itself, sent with the previous epoch's colour.
TEST_CASE("message registry: late messages of one source and tag are logged in matching order",
          "[registry][split]") {
  const LateToItself setting;
  const int me = setting.me, tag = 77;
  const int32_t late = setting.late;
  ProtocolState &st = state();
  std::vector<char> big(20000), small(100), first(20000, 0), second(100, 0);
  for (size_t i = 0; i < big.size(); ++i) big[i] = char(i * 7);
  for (size_t i = 0; i < small.size(); ++i) small[i] = char(i * 3 + 1);
  MPI_Request rq[2];
  MPI_Irecv(first.data(), int(first.size()), MPI_CHAR, me, tag, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(second.data(), int(second.size()), MPI_CHAR, me, tag, MPI_COMM_WORLD, &rq[1]);
  // The first split (as c3 sends it), the second inline (header and payload in one message).
  MPI_Request send = MPI_REQUEST_NULL;
  REQUIRE(split::send(big.data(), int(big.size()), MPI_CHAR, me, tag,
                      CommArg{MPI_COMM_WORLD, MPI_COMM_WORLD}, SendMode::Standard, late,
                      &send) == MPI_SUCCESS);
  std::vector<char> wire(size_t(pb::kHeaderBytes) + small.size());
  std::memcpy(wire.data(), &late, pb::kHeaderBytes);
  std::memcpy(wire.data() + pb::kHeaderBytes, small.data(), small.size());
  PMPI_Send(wire.data(), int(wire.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  PMPI_Wait(&send, MPI_STATUS_IGNORE);
  CHECK(first == big);
  CHECK(second == small);
  REQUIRE(st.log.late.size() == 2);
  CHECK(st.log.late[0].payload == std::string(big.begin(), big.end()));
  CHECK(st.log.late[1].payload == std::string(small.begin(), small.end()));
}

// The same order for a message matched by MPI_Mprobe: at restart the probe takes the first
// logged late message of its (source, tag) not taken by a receive posted before it. So the
// messages of receives posted before the probe are logged before the probed one, and the probed
// one before those of receives posted after the probe, whichever call completes first.
TEST_CASE("message registry: a late message matched by MPI_Mprobe is logged in matching order",
          "[registry][probe]") {
  const LateToItself setting;
  const int me = setting.me, tag = 78;
  const int32_t late = setting.late;
  ProtocolState &st = state();
  std::string wires[2];
  MPI_Request sends[2];
  int sent = 0;
  auto send_late = [&](const std::string &payload) {  // nonblocking: to itself
    std::string &wire = wires[sent];
    wire.assign(size_t(pb::kHeaderBytes), '\0');
    std::memcpy(wire.data(), &late, pb::kHeaderBytes);
    wire += payload;
    PMPI_Isend(wire.data(), int(wire.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[sent++]);
  };
  std::vector<char> got(16, 0);
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status;

  SECTION("a receive posted before the probe, waited for after MPI_Mrecv") {
    std::vector<char> earlier(16, 0);
    MPI_Request rq;
    MPI_Irecv(earlier.data(), 16, MPI_CHAR, me, tag, MPI_COMM_WORLD, &rq);
    send_late("first");
    send_late("second");
    REQUIRE(MPI_Mprobe(me, tag, MPI_COMM_WORLD, &message, &status) == MPI_SUCCESS);
    REQUIRE(MPI_Mrecv(got.data(), 16, MPI_CHAR, &message, &status) == MPI_SUCCESS);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(std::string(earlier.data()) == "first");
    CHECK(std::string(got.data()) == "second");
  }
  SECTION("a receive posted between MPI_Mprobe and MPI_Mrecv, waited for first") {
    send_late("first");
    send_late("second");
    REQUIRE(MPI_Mprobe(me, tag, MPI_COMM_WORLD, &message, &status) == MPI_SUCCESS);
    std::vector<char> later(16, 0);
    MPI_Request rq;
    MPI_Irecv(later.data(), 16, MPI_CHAR, me, tag, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    int count = -1;
    REQUIRE(MPI_Mrecv(got.data(), 16, MPI_CHAR, &message, &status) == MPI_SUCCESS);
    MPI_Get_count(&status, MPI_CHAR, &count);
    CHECK(count == 5);
    CHECK(status.MPI_SOURCE == me);
    CHECK(status.MPI_TAG == tag);
    CHECK(std::string(got.data()) == "first");
    CHECK(std::string(later.data()) == "second");
  }
  PMPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
  CHECK(message == MPI_MESSAGE_NULL);
  REQUIRE(st.log.late.size() == 2);
  CHECK(st.log.late[0].payload == "first");
  CHECK(st.log.late[1].payload == "second");
}
