// Payload receives posted before their header (messages/payload_prepost.hpp), through the real
// hooks: a large exact receive asks its sender to split everything; once a marked header came on
// a (source, communicator, tag), exact receives there post their payload's receive at once.
// Every test checks what the program gets (payload, order, counts) and that c3 is left clean.
// Messages to itself run in the serial job; the last test needs two ranks.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <vector>

#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/payload_prepost.hpp"
#include "messages/payload_window.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_lane.hpp"
#include "messages/split_transfer.hpp"
#include "unit_support.hpp"

using namespace c3::mpi;
using c3::mpi::test::Bytes;
using c3::mpi::test::buffer;
using c3::mpi::test::holds;
using c3::mpi::test::pair_peer;
using c3::mpi::test::world_rank;

namespace {

constexpr int kTagBase = 7900;
constexpr int kLarge = int(piggyback::kBounceLimit) + 1;

Bytes payload(size_t bytes, unsigned seed) {
  Bytes b(bytes);
  for (size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>(i * 7u + seed * 13u + (i >> 8));
  return b;
}
int bytes_of(const MPI_Status &st) {
  int n = -1;
  MPI_Get_count(&st, MPI_BYTE, &n);
  return n;
}

void check_clean() {
  CHECK(rt().awaiting.size() == 0);
  CHECK(prepost::preposted_now() == 0);
  CHECK(prepost::unprepared() == 0);
  CHECK_FALSE(split::payloads_drained());
  for (const Request &r : state().requests) {
    CHECK_FALSE(r.payload_pending);
    CHECK_FALSE(r.preposted);
  }
}

// Runs MPICH's progress until world rank `me`'s own word says `receiver` asked it to split
// everything (an ask lands when the sender next enters MPI).
bool ask_arrived(int receiver) {
  const auto start = std::chrono::steady_clock::now();
  while (!payload_window::splits_all_to(receiver)) {
    int flag = 0;
    PMPI_Iprobe(MPI_ANY_SOURCE, 32767, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) return false;
  }
  return true;
}

// A rank sending to itself: a first exact receive on `tag` asks, and a message sent once the ask
// is in marks the triple. Afterwards exact receives on (me, tag) are preposted.
void mark_own_triple(int tag) {
  const int me = world_rank();
  Bytes got = buffer(size_t(kLarge));
  MPI_Request r, s;
  const bool fresh = !prepost::diverting();  // not in a test's later GENERATE run
  MPI_Irecv(got.data(), kLarge, MPI_BYTE, me, tag, MPI_COMM_WORLD, &r);
  REQUIRE(prepost::diverting());
  if (fresh) CHECK_FALSE(request_of(r).preposted);  // nothing marked yet
  REQUIRE(ask_arrived(me));
  const Bytes small = payload(40, 9);
  MPI_Isend(small.data(), 40, MPI_BYTE, me, tag, MPI_COMM_WORLD, &s);
  CHECK(request_of(s).split_send);  // a small message too, once asked
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  CHECK(holds(got, small));
}

// An inline message as a sender that ignored the ask would send it: header and payload in one.
void send_inline_unsplit(const Bytes &data, int dest, int tag) {
  Bytes wire(size_t(piggyback::kHeaderBytes) + data.size());
  const int32_t header = piggyback::make_header(state().epoch, false);
  std::memcpy(wire.data(), &header, piggyback::kHeaderBytes);
  if (!data.empty()) std::memcpy(wire.data() + piggyback::kHeaderBytes, data.data(), data.size());
  count_sent(dest);
  PMPI_Send(wire.data(), int(wire.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

}  // namespace

TEST_CASE("prepost: once marked, exact receives post their payload's receive at once",
          "[prepost]") {
  check_clean();
  const int me = world_rank(), tag = kTagBase;
  mark_own_triple(tag);
  const int how = GENERATE(0, 1, 2);  // MPI_Waitall, MPI_Wait each, MPI_Testsome
  INFO("completion " << how);
  const std::vector<size_t> sizes = {0, 5, 4096, size_t(piggyback::kBounceLimit), size_t(kLarge),
                                     3 * size_t(kLarge)};
  const size_t capacity = 3 * size_t(kLarge) + 100;
  std::vector<Bytes> got(sizes.size(), buffer(capacity));
  std::vector<MPI_Request> recvs(sizes.size()), sends(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    MPI_Irecv(got[i].data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &recvs[i]);
    CHECK(request_of(recvs[i]).preposted);
  }
  CHECK(prepost::preposted_now() == sizes.size());
  CHECK_FALSE(split::must_poll());  // their payloads move without c3

  // Another tag of the same source is not marked yet: its receive posts late.
  Bytes other = buffer(capacity);
  MPI_Request unmarked;
  MPI_Irecv(other.data(), int(capacity), MPI_BYTE, me, tag + 1, MPI_COMM_WORLD, &unmarked);
  CHECK_FALSE(request_of(unmarked).preposted);
  CHECK(split::must_poll());
  MPI_Cancel(&unmarked);
  MPI_Wait(&unmarked, MPI_STATUS_IGNORE);
  CHECK_FALSE(split::must_poll());

  std::vector<Bytes> sent;
  for (size_t i = 0; i < sizes.size(); ++i) sent.push_back(payload(sizes[i], unsigned(i + 20 * how)));
  for (size_t i = 0; i < sizes.size(); ++i) {
    MPI_Isend(sent[i].data(), int(sizes[i]), MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[i]);
    CHECK(request_of(sends[i]).split_send);
  }
  std::vector<MPI_Status> sts(sizes.size());
  if (how == 0) {
    MPI_Waitall(int(recvs.size()), recvs.data(), sts.data());
  } else if (how == 1) {
    for (size_t i = 0; i < recvs.size(); ++i) MPI_Wait(&recvs[i], &sts[i]);
  } else {
    std::vector<int> indices(recvs.size());
    std::vector<MPI_Status> some(recvs.size());
    for (size_t left = recvs.size(); left > 0;) {
      int done = 0;
      MPI_Testsome(int(recvs.size()), recvs.data(), &done, indices.data(), some.data());
      for (int k = 0; k < done; ++k) sts[size_t(indices[size_t(k)])] = some[size_t(k)];
      if (done != MPI_UNDEFINED) left -= size_t(done);
    }
  }
  MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  for (size_t i = 0; i < sizes.size(); ++i) {
    INFO("message " << i << ", " << sizes[i] << " bytes");
    CHECK(holds(got[i], sent[i]));
    CHECK(bytes_of(sts[i]) == int(sizes[i]));
    CHECK(sts[i].MPI_SOURCE == me);
    CHECK(sts[i].MPI_TAG == tag);
  }
  check_clean();
}

TEST_CASE("prepost: a receive behind one that may take its message posts late", "[prepost]") {
  check_clean();
  const int me = world_rank(), tag = kTagBase + 10;
  mark_own_triple(tag);
  const size_t capacity = 2 * size_t(kLarge);
  Bytes a = buffer(capacity), b = buffer(capacity), c = buffer(capacity), d = buffer(capacity);
  MPI_Request rq[4];
  // Preposted; then a wildcard (never preposted); then two exact ones behind the wildcard.
  MPI_Irecv(a.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(b.data(), int(capacity), MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &rq[1]);
  MPI_Irecv(c.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq[2]);
  MPI_Irecv(d.data(), 100, MPI_BYTE, me, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[3]);
  CHECK(request_of(rq[0]).preposted);
  CHECK_FALSE(request_of(rq[1]).preposted);
  CHECK_FALSE(request_of(rq[2]).preposted);
  CHECK_FALSE(request_of(rq[3]).preposted);
  CHECK(request_of(rq[3]).awaits_header);  // a small receive may get a split header now
  const Bytes m0 = payload(size_t(kLarge), 1), m1 = payload(10, 2), m2 = payload(capacity, 3),
              m3 = payload(100, 4);
  MPI_Send(m0.data(), int(m0.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Send(m1.data(), int(m1.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Send(m2.data(), int(m2.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Send(m3.data(), int(m3.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Status sts[4];
  MPI_Waitall(4, rq, sts);  // completed in reverse posting order inside, as MPICH reports them
  CHECK(holds(a, m0));
  CHECK(holds(b, m1));
  CHECK(holds(c, m2));
  CHECK(std::memcmp(d.data(), m3.data(), m3.size()) == 0);
  CHECK(bytes_of(sts[1]) == 10);
  CHECK(bytes_of(sts[3]) == 100);
  check_clean();
}

TEST_CASE("prepost: MPI_Cancel of a preposted receive", "[prepost]") {
  check_clean();
  const int me = world_rank(), tag = kTagBase + 20;
  mark_own_triple(tag);
  const size_t capacity = 2 * size_t(kLarge);
  Bytes a = buffer(capacity), b = buffer(capacity);
  MPI_Request r;
  MPI_Status st;
  int cancelled = 0;

  // Nothing came: the cancel succeeds and the next receive gets the next message.
  MPI_Irecv(a.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &r);
  REQUIRE(request_of(r).preposted);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(cancelled);
  CHECK(a == buffer(capacity));
  const Bytes m0 = payload(size_t(kLarge) + 7, 5);
  MPI_Irecv(b.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &r);
  CHECK(request_of(r).preposted);
  MPI_Send(m0.data(), int(m0.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Wait(&r, &st);
  CHECK(holds(b, m0));

  // The message matched first: the cancel fails and the receive completes with it.
  a = buffer(capacity);
  const Bytes m1 = payload(300, 6);
  MPI_Irecv(a.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &r);
  REQUIRE(request_of(r).preposted);
  MPI_Send(m1.data(), int(m1.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &cancelled);
  CHECK_FALSE(cancelled);
  CHECK(bytes_of(st) == 300);
  CHECK(holds(a, m1));
  check_clean();
}

TEST_CASE("prepost: a preposted receive that gets an inline message gives back what it took",
          "[prepost]") {
  check_clean();
  const int me = world_rank(), tag = kTagBase + 30;
  mark_own_triple(tag);
  const size_t capacity = 3 * size_t(kLarge);
  Bytes a = buffer(capacity), b = buffer(capacity), c = buffer(capacity);
  MPI_Request rq[3];
  MPI_Irecv(a.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(b.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq[1]);
  MPI_Irecv(c.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq[2]);
  for (MPI_Request h : rq) REQUIRE(request_of(h).preposted);
  // The first message travels inline, the next two split: a message to itself is matched as it
  // is sent, so the first receive's early payload receive takes the second message's payload,
  // and the second's the third's. c3 must give both back in order.
  // (At most piggyback::kHeaderOnlyPayload bytes: a preposted receive's header has no more room.)
  const Bytes m0 = payload(12, 7), m1 = payload(size_t(kLarge), 8), m2 = payload(capacity, 9);
  send_inline_unsplit(m0, me, tag);
  MPI_Send(m1.data(), int(m1.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Send(m2.data(), int(m2.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  const uint64_t given_back = prepost::payloads_given_back();
  MPI_Status sts[3];
  MPI_Waitall(3, rq, sts);
  CHECK(prepost::payloads_given_back() == given_back + 2);
  // Past its message a buffer may hold what its early payload receive took meanwhile.
  CHECK(std::memcmp(a.data(), m0.data(), m0.size()) == 0);
  CHECK(std::memcmp(b.data(), m1.data(), m1.size()) == 0);
  CHECK(holds(c, m2));
  CHECK(bytes_of(sts[0]) == 12);
  CHECK(bytes_of(sts[1]) == int(m1.size()));
  CHECK(bytes_of(sts[2]) == int(m2.size()));
  check_clean();
}

TEST_CASE("prepost: MPI_Mprobe behind a preposted receive gets the next message", "[prepost]") {
  check_clean();
  const int me = world_rank(), tag = kTagBase + 40;
  mark_own_triple(tag);
  const size_t capacity = 2 * size_t(kLarge);
  Bytes a = buffer(capacity), b = buffer(capacity);
  MPI_Request r;
  MPI_Irecv(a.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &r);
  REQUIRE(request_of(r).preposted);
  const Bytes m0 = payload(size_t(kLarge) + 3, 10), m1 = payload(capacity, 11);
  MPI_Send(m0.data(), int(m0.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Request send;  // nothing is posted for it: its payload waits for the probe's receive
  MPI_Isend(m1.data(), int(m1.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD, &send);
  MPI_Message message;
  MPI_Status st;
  MPI_Mprobe(me, tag, MPI_COMM_WORLD, &message, &st);
  CHECK(bytes_of(st) == int(m1.size()));
  MPI_Mrecv(b.data(), int(capacity), MPI_BYTE, &message, &st);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  CHECK(holds(b, m1));
  MPI_Wait(&r, &st);
  CHECK(holds(a, m0));
  CHECK(bytes_of(st) == int(m0.size()));
  check_clean();
}

// Windows of mixed sizes between two processes, completed in several ways, with a collective
// while preposted receives are pending: once the sender splits everything, the receiver's exact
// receives prepost, and every message lands in its own receive.
TEST_CASE("two ranks: windows of mixed sizes into preposted receives", "[two_ranks][prepost]") {
  const int peer = pair_peer();
  if (peer < 0) return;
  const int me = world_rank(), tag = kTagBase + 50;
  const std::vector<size_t> sizes = {9000, 0, 17, 4096, 8192, 70000, 20000, 1, 65536, 8193};
  const size_t capacity = 70000;
  size_t preposted_seen = 0;
  for (int round = 0; round < 12; ++round) {
    INFO("round " << round);
    std::vector<Bytes> sent;
    for (size_t i = 0; i < sizes.size(); ++i) sent.push_back(payload(sizes[i], unsigned(round * 31 + int(i))));
    if (me == 0) {
      std::vector<MPI_Request> sends(sizes.size());
      MPI_Barrier(MPI_COMM_WORLD);  // the receives are posted
      for (size_t i = 0; i < sizes.size(); ++i)
        MPI_Isend(sent[i].data(), int(sizes[i]), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &sends[i]);
      MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    } else {
      std::vector<Bytes> got(sizes.size(), buffer(capacity));
      std::vector<MPI_Request> recvs(sizes.size());
      for (size_t i = 0; i < sizes.size(); ++i) {
        // Every third round a wildcard in the middle: the receives behind it post late.
        const int source = round % 3 == 2 && i == 4 ? MPI_ANY_SOURCE : peer;
        MPI_Irecv(got[i].data(), int(capacity), MPI_BYTE, source, tag, MPI_COMM_WORLD, &recvs[i]);
      }
      preposted_seen += prepost::preposted_now();
      MPI_Barrier(MPI_COMM_WORLD);  // blocks inside MPICH with the receives pending
      std::vector<MPI_Status> sts(sizes.size());
      if (round % 2 == 0) {
        MPI_Waitall(int(recvs.size()), recvs.data(), sts.data());
      } else {
        for (size_t k = 0; k < recvs.size(); ++k) {
          int index = -1;
          MPI_Status st;
          MPI_Waitany(int(recvs.size()), recvs.data(), &index, &st);
          sts[size_t(index)] = st;
        }
      }
      for (size_t i = 0; i < sizes.size(); ++i) {
        INFO("message " << i);
        CHECK(holds(got[i], sent[i]));
        CHECK(bytes_of(sts[i]) == int(sizes[i]));
        CHECK(sts[i].MPI_SOURCE == peer);
      }
    }
  }
  if (me == 1) CHECK(preposted_seen > 0);
  check_clean();
}

// The split-message lane (messages/split_lane.hpp): MPI_Isend of a split message and MPI_Irecv
// of a preposted one take table slots without the hooks, and MPI_Waitall finishes them in place
// while they are as the lane left them; anything else is the general completion's.
TEST_CASE("split lane: MPI_Waitall finishes preposted receives and split sends in place",
          "[prepost][split_lane]") {
  check_clean();
  const int me = world_rank(), tag = kTagBase + 60;
  mark_own_triple(tag);
  const std::vector<size_t> sizes = {size_t(kLarge), 0, 40, 3 * size_t(kLarge), size_t(kLarge) + 5};
  const size_t capacity = 3 * size_t(kLarge) + 64;
  std::vector<Bytes> got(sizes.size(), buffer(capacity)), sent;
  const size_t n = sizes.size();
  std::vector<MPI_Request> all(2 * n + 1, MPI_REQUEST_NULL);  // receives, a null, sends
  for (size_t i = 0; i < n; ++i) {
    MPI_Irecv(got[i].data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &all[i]);
    REQUIRE(request_of(all[i]).split_lane);
    CHECK(request_of(all[i]).preposted);
    CHECK_FALSE(request_of(all[i]).small);
  }
  for (size_t i = 0; i < n; ++i) {
    sent.push_back(payload(sizes[i], unsigned(i + 40)));
    // Every message to a rank that asked travels split, the small ones too.
    MPI_Isend(sent[i].data(), int(sizes[i]), MPI_BYTE, me, tag, MPI_COMM_WORLD, &all[n + 1 + i]);
    REQUIRE(request_of(all[n + 1 + i]).split_lane);
    CHECK(request_of(all[n + 1 + i]).split_send);
  }
  const uint64_t finished = split_lane::g_finished;
  const uint64_t received = state().received[state().epoch & 3][size_t(me)];
  std::vector<MPI_Status> sts(all.size());
  for (MPI_Status &st : sts) st.MPI_ERROR = -1;
  REQUIRE(MPI_Waitall(int(all.size()), all.data(), sts.data()) == MPI_SUCCESS);
  CHECK(split_lane::g_finished == finished + 2 * n);
  CHECK(state().received[state().epoch & 3][size_t(me)] == received + n);
  for (MPI_Request h : all) CHECK(h == MPI_REQUEST_NULL);
  for (size_t i = 0; i < n; ++i) {
    INFO("message " << i << ", " << sizes[i] << " bytes");
    CHECK(holds(got[i], sent[i]));
    CHECK(bytes_of(sts[i]) == int(sizes[i]));
    CHECK(sts[i].MPI_SOURCE == me);
    CHECK(sts[i].MPI_TAG == tag);
    CHECK(sts[i].MPI_ERROR == MPI_SUCCESS);
    CHECK(sts[n + 1 + i].MPI_ERROR == MPI_SUCCESS);
  }
  CHECK(sts[n].MPI_SOURCE == MPI_ANY_SOURCE);  // the null request's empty status
  CHECK(sts[n].MPI_TAG == MPI_ANY_TAG);
  check_clean();
  // Their slots went back clean: a small message that takes one is not split.
  for (const Request &r : state().requests) CHECK_FALSE(r.split_lane);
}

namespace {

// Receives into `a` and `b` on (this rank, tag), then sends of m0 and m1 to them: all four
// through the split lane.
void lane_pair(int tag, Bytes &a, Bytes &b, const Bytes &m0, const Bytes &m1, MPI_Request rq[2],
               MPI_Request sq[2]) {
  const int me = world_rank();
  MPI_Irecv(a.data(), int(a.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(b.data(), int(b.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq[1]);
  MPI_Isend(m0.data(), int(m0.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD, &sq[0]);
  MPI_Isend(m1.data(), int(m1.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD, &sq[1]);
  for (MPI_Request h : {rq[0], rq[1], sq[0], sq[1]}) REQUIRE(request_of(h).split_lane);
}

}  // namespace

TEST_CASE("split lane: other completions of its requests take the general path",
          "[prepost][split_lane]") {
  check_clean();
  const int tag = kTagBase + 70;
  mark_own_triple(tag);
  const size_t capacity = 2 * size_t(kLarge);
  const Bytes m0 = payload(capacity, 1), m1 = payload(size_t(kLarge), 2);
  Bytes a = buffer(capacity), b = buffer(capacity);
  MPI_Request rq[2], sq[2];
  lane_pair(tag, a, b, m0, m1, rq, sq);
  const uint64_t finished = split_lane::g_finished;
  MPI_Status st;
  MPI_Wait(&rq[0], &st);  // the general path: the header, then the payload
  CHECK(holds(a, m0));
  CHECK(bytes_of(st) == int(m0.size()));
  int flag = 0;
  while (!flag) MPI_Test(&sq[0], &flag, MPI_STATUS_IGNORE);
  // The general completion of the first receive may have taken the second's header: then
  // MPI_Waitall leaves it to the general path too.
  MPI_Status sts[2];
  MPI_Request rest[2] = {rq[1], sq[1]};
  REQUIRE(MPI_Waitall(2, rest, sts) == MPI_SUCCESS);
  CHECK(holds(b, m1));
  CHECK(bytes_of(sts[0]) == int(m1.size()));
  CHECK(split_lane::g_finished <= finished + 2);
  check_clean();
}

// As the general completion reports it: in the status (MPI_Waitall's result is left to it).
TEST_CASE("split lane: a payload cut short is reported in its status",
          "[prepost][split_lane]") {
  check_clean();
  const int tag = kTagBase + 80;
  mark_own_triple(tag);
  const size_t capacity = size_t(kLarge);
  const Bytes m0 = payload(2 * capacity, 3), m1 = payload(capacity, 4);
  Bytes a = buffer(capacity), b = buffer(capacity);
  MPI_Request rq[2], sq[2];
  lane_pair(tag, a, b, m0, m1, rq, sq);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Status sts[2];
  const uint64_t finished = split_lane::g_finished;
  MPI_Waitall(2, rq, sts);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(split_lane::g_finished == finished);  // the general completion's
  int error_class = -1;
  MPI_Error_class(sts[0].MPI_ERROR, &error_class);
  CHECK(error_class == MPI_ERR_TRUNCATE);
  CHECK(sts[1].MPI_ERROR == MPI_SUCCESS);
  CHECK(bytes_of(sts[1]) == int(m1.size()));
  CHECK(holds(b, m1));
  MPI_Waitall(2, sq, MPI_STATUSES_IGNORE);
  check_clean();
}
