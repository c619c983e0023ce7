// Tests between two ranks (skipped when the job has one): piggybacked messages across processes,
// and a late message (sent in the sender's previous epoch) logged with its payload.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "messages/piggyback.hpp"
#include "messages/small_completion.hpp"
#include "unit_support.hpp"

using namespace c3::mpi;
namespace pb = c3::mpi::piggyback;
using c3::mpi::test::StateGuard;
using c3::mpi::test::have_two_ranks;
using c3::mpi::test::pair_peer;
using c3::mpi::test::world_rank;
using c3::mpi::test::world_size;

namespace {

constexpr int kTagBase = 700;

struct Shape {
  MPI_Datatype type;
  int count;
  size_t elem;
};

void fill(std::vector<unsigned char> &buf, int seed) {
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = (i * 13 + size_t(seed)) % 5 == 0 ? 0 : (i * 7 + size_t(seed)) & 0xff;
}

// A message of `count` ints sent as first, first + 1, ... arrived whole in `in` (and nothing past
// it), and, unless `s` is null, its status says so: count, source `peer`, tag `tag`.
void check_arrival(const std::vector<int> &in, int count, int first, const MPI_Status *s, int peer,
                   int tag) {
  for (int k = 0; k < count; ++k)
    if (in[size_t(k)] != first + k) FAIL("payload of " << count << " ints, from " << first << ", at " << k);
  CHECK(in[size_t(count)] == -7);  // nothing past the message
  if (s == nullptr) return;
  int got = -1;
  PMPI_Get_count(s, MPI_INT, &got);
  CHECK(got == count);
  CHECK(s->MPI_SOURCE == peer);
  CHECK(s->MPI_TAG == tag);
}

}  // namespace

TEST_CASE("setup: MPI_Init went through c3's wrapper", "[setup]") {
  const Runtime &r = rt();
  CHECK(r.initialized);
  CHECK(r.app_initialized);
  CHECK_FALSE(r.finalized);
  CHECK(r.rank == world_rank());
  CHECK(r.size == world_size());
  CHECK(r.control != MPI_COMM_NULL);
  CHECK(state().sent.size() == size_t(world_size()));
  for (const auto &received : state().received) CHECK(received.size() == size_t(world_size()));
  CHECK(state().mode == Mode::Run);
}

TEST_CASE("two ranks: piggybacked messages between processes", "[two_ranks][piggyback]") {
  if (!have_two_ranks()) return;
  const int me = world_rank();
  if (me > 1) return;
  const std::vector<Shape> shapes = {
      {MPI_INT, 10, 4},         {MPI_INT, 4096, 4},      {MPI_INT, 100000, 4},
      {MPI_DOUBLE, 1, 8},       {MPI_DOUBLE, 2049, 8},   {MPI_CHAR, 1 << 20, 1},
      {MPI_CHAR, 0, 1},         {MPI_DOUBLE, 0, 8},
  };
  // Rank 0 sends every shape to rank 1, then rank 1 sends them back.
  for (int direction = 0; direction < 2; ++direction) {
    const bool sending = me == direction;
    const int peer = 1 - me;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const Shape &s = shapes[k];
      INFO("direction " << direction << ", shape " << k);
      const int tag = kTagBase + int(k);
      const int32_t header = pb::make_header(k, k % 2 == 1);
      std::vector<unsigned char> data(size_t(s.count) * s.elem);
      fill(data, int(k));
      if (sending) {
        Request r;
        pb::Wire w = pb::prepare_send(r, data.data(), s.count, s.type, header);
        REQUIRE(PMPI_Send(w.buf, w.count, w.type, peer, tag, MPI_COMM_WORLD) == MPI_SUCCESS);
        pb::release(r);
      } else {
        std::vector<unsigned char> got(data.size() + 8, 0xaa);
        Request r;
        r.buf = reinterpret_cast<uintptr_t>(got.data());
        pb::Wire w = pb::prepare_recv(r, got.data(), s.count + 1, s.type);
        MPI_Status st;
        REQUIRE(PMPI_Recv(const_cast<void *>(w.buf), w.count, w.type, peer, tag, MPI_COMM_WORLD,
                          &st) == MPI_SUCCESS);
        int32_t got_header = 0;
        REQUIRE(pb::finish_recv(r, st, got_header) == pb::Arrival::Payload);
        pb::release(r);
        CHECK(got_header == header);
        int count = -1;
        PMPI_Get_count(&st, s.type, &count);
        CHECK(count == s.count);
        CHECK(st.MPI_SOURCE == peer);
        if (!data.empty()) CHECK(std::memcmp(got.data(), data.data(), data.size()) == 0);
        CHECK(got[data.size()] == 0xaa);
      }
    }
  }
}

TEST_CASE("two ranks: a late message is logged with its payload", "[two_ranks][registry]") {
  if (!have_two_ranks()) return;
  const int me = world_rank();
  if (me > 1) return;
  StateGuard guard;
  ProtocolState &st = state();
  const int tag = kTagBase + 50;
  std::vector<int> payload(6000);  // large: the absolute wire type
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = int(i) - 3000;
  if (me == 0) {
    // Still in epoch 0, Run mode: its header carries colour 0.
    st.mode = Mode::Run;
    st.epoch = 0;
    Request *r = nullptr;
    MPI_Request h = new_request(Request::Kind::Send, &r);
    r->buf = reinterpret_cast<uintptr_t>(payload.data());
    r->count = int(payload.size());
    r->type = MPI_INT;
    r->peer = 1;
    r->tag = tag;
    r->comm = MPI_COMM_WORLD;
    REQUIRE(start_send(*r) == MPI_SUCCESS);
    wait_request(*r);
    deliver(h, MPI_STATUS_IGNORE);
  } else {
    // Took checkpoint 1 already and waits for rank 0's Checkpoint-Initiated: NonDet-Log.
    st.epoch = 1;
    st.mode = Mode::NonDetLog;
    st.log = CheckpointLog{};
    std::fill(st.initiated.begin(), st.initiated.end(), 0);
    const uint64_t before = st.received[0][0];
    std::vector<int> got(payload.size());
    Request *r = nullptr;
    MPI_Request h = new_request(Request::Kind::Recv, &r);
    r->buf = reinterpret_cast<uintptr_t>(got.data());
    r->count = int(got.size());
    r->type = MPI_INT;
    r->peer = MPI_ANY_SOURCE;
    r->tag = tag;
    r->comm = MPI_COMM_WORLD;
    REQUIRE(start_recv(*r) == MPI_SUCCESS);
    const uint64_t posting = r->posting;
    wait_request(*r);
    MPI_Status status;
    deliver(h, &status);
    CHECK(got == payload);
    CHECK(status.MPI_SOURCE == 0);
    int count = -1;
    PMPI_Get_count(&status, MPI_INT, &count);
    CHECK(count == int(payload.size()));
    CHECK(st.received[0][0] == before + 1);
    REQUIRE(st.log.late.size() == 1);
    CHECK(st.log.late[0].source == 0);
    CHECK(st.log.late[0].tag == tag);
    CHECK(st.log.late[0].payload ==
          std::string(reinterpret_cast<const char *>(payload.data()), payload.size() * sizeof(int)));
    CHECK(st.log.late_bytes == payload.size() * sizeof(int));
    REQUIRE(st.log.resolutions.count(posting) == 1);  // MPI_ANY_SOURCE in NonDet-Log
    CHECK(st.log.resolutions[posting].source == 0);
    CHECK(st.log.resolutions[posting].tag == tag);
  }
}

TEST_CASE("two ranks: MPI_Waitall over small messages finishes them in place",
          "[two_ranks][requests]") {
  const int peer = pair_peer();
  if (peer < 0) return;
  const int me = 1 - peer;
  StateGuard guard;
  const size_t live_before = state().requests.size() - g_free_slots.size() - g_small_slots.size();
  const int sizes[3] = {1, 100, 2000};  // ints: inline, in a slot's own bounce, a spare bounce
  // Three receives take one PMPI_Waitall, twelve take rounds that copy each out as it arrives.
  for (int per_size : {1, 4}) {
    for (bool with_statuses : {false, true}) {
      INFO("statuses " << with_statuses << ", receives " << 3 * per_size);
      const int m = 3 * per_size, calls = 2 * m + 1;  // receives, a null request, sends
      std::vector<std::vector<int>> out(static_cast<size_t>(m)), in(static_cast<size_t>(m));
      std::vector<MPI_Request> rq(static_cast<size_t>(calls));
      std::vector<MPI_Status> st(static_cast<size_t>(calls));
      for (int j = 0; j < m; ++j) {
        const int n = sizes[j % 3];
        out[size_t(j)].assign(size_t(n), 0);
        for (int i = 0; i < n; ++i) out[size_t(j)][size_t(i)] = me * 100000 + j * 1000 + i;
        in[size_t(j)].assign(size_t(n) + 1, -7);
        REQUIRE(MPI_Irecv(in[size_t(j)].data(), n + 1, MPI_INT, peer, kTagBase + 300 + j,
                          MPI_COMM_WORLD, &rq[size_t(j)]) == MPI_SUCCESS);
      }
      rq[size_t(m)] = MPI_REQUEST_NULL;
      for (int j = 0; j < m; ++j)
        REQUIRE(MPI_Isend(out[size_t(j)].data(), sizes[j % 3], MPI_INT, peer, kTagBase + 300 + j,
                          MPI_COMM_WORLD, &rq[size_t(m + 1 + j)]) == MPI_SUCCESS);
      for (MPI_Request h : rq)
        if (h != MPI_REQUEST_NULL) CHECK(request_of(h).small);
      for (MPI_Status &s : st) s.MPI_ERROR = 77;
      const uint64_t received_before = state().received[state().epoch & 3][size_t(peer)];
      REQUIRE(MPI_Waitall(calls, rq.data(), with_statuses ? st.data() : MPI_STATUSES_IGNORE) ==
              MPI_SUCCESS);
      for (MPI_Request h : rq) CHECK(h == MPI_REQUEST_NULL);
      CHECK(state().received[state().epoch & 3][size_t(peer)] == received_before + uint64_t(m));
      for (int j = 0; j < m; ++j) {
        check_arrival(in[size_t(j)], sizes[j % 3], peer * 100000 + j * 1000,
                      with_statuses ? &st[size_t(j)] : nullptr, peer, kTagBase + 300 + j);
        if (!with_statuses) continue;
        CHECK(st[size_t(j)].MPI_ERROR == MPI_SUCCESS);          // MPI_Waitall sets it
        CHECK(st[size_t(m + 1 + j)].MPI_ERROR == MPI_SUCCESS);  // of sends too
      }
      if (with_statuses) {
        CHECK(st[size_t(m)].MPI_SOURCE == MPI_ANY_SOURCE);  // the null request's empty status
        CHECK(st[size_t(m)].MPI_TAG == MPI_ANY_TAG);
        CHECK(st[size_t(m)].MPI_ERROR == 77);
      }
    }
  }
  CHECK(state().requests.size() - g_free_slots.size() - g_small_slots.size() == live_before);  // every entry freed
}

namespace {

// The calls that complete the lane's requests, and one round of each over `n` requests: the
// number completed, each request's status stored at its own index (MPI_Wait and MPI_Test take
// the first active request; MPI_Testall counts all or none).
enum class Completer { Wait, Test, Waitall, Waitsome, Testany, Testsome, Testall };
constexpr Completer kAllCalls[] = {Completer::Wait,     Completer::Test,    Completer::Waitall,
                                   Completer::Waitsome, Completer::Testany, Completer::Testsome,
                                   Completer::Testall};
constexpr Completer kSetCalls[] = {Completer::Waitsome, Completer::Testany, Completer::Testsome,
                                   Completer::Testall};

const char *call_name(Completer c) {
  static const char *const names[] = {"MPI_Wait",    "MPI_Test",     "MPI_Waitall", "MPI_Waitsome",
                                      "MPI_Testany", "MPI_Testsome", "MPI_Testall"};
  return names[int(c)];
}

MPI_Status unset_status() {
  MPI_Status s;
  std::memset(&s, 0, sizeof s);
  s.MPI_SOURCE = -5;
  s.MPI_ERROR = 77;
  return s;
}

// Leaves non-zero bytes where the next calls' frames go: the wrappers keep their arrays on the
// stack uninitialized, and what MPICH does not write must not be read.
[[gnu::noinline]] void dirty_stack() {
  volatile unsigned char junk[32 * 1024];
  for (size_t i = 0; i < sizeof junk; ++i) junk[i] = 0x5a;
}

int complete_some(Completer call, int n, MPI_Request rq[], MPI_Status st[]) {
  dirty_stack();
  int flag = 0, index = MPI_UNDEFINED, got = 0, indices[8];
  MPI_Status packed[8];  // as the program's statuses were: fields MPI does not set stay so
  for (MPI_Status &s : packed) s = unset_status();
  switch (call) {
    case Completer::Wait:
    case Completer::Test:
      for (int i = 0; i < n; ++i) {
        if (rq[i] == MPI_REQUEST_NULL) continue;
        if (call == Completer::Wait) {
          REQUIRE(MPI_Wait(&rq[i], &st[i]) == MPI_SUCCESS);
          return 1;
        }
        REQUIRE(MPI_Test(&rq[i], &flag, &st[i]) == MPI_SUCCESS);
        return flag;
      }
      return 0;
    case Completer::Waitall:
      for (int i = 0; i < n; ++i) got += rq[i] != MPI_REQUEST_NULL;
      REQUIRE(MPI_Waitall(n, rq, st) == MPI_SUCCESS);
      return got;
    case Completer::Testany:
      REQUIRE(MPI_Testany(n, rq, &index, &flag, &packed[0]) == MPI_SUCCESS);
      if (!flag) CHECK(index == MPI_UNDEFINED);
      if (!flag || index == MPI_UNDEFINED) return 0;
      st[index] = packed[0];
      return 1;
    case Completer::Waitsome:
    case Completer::Testsome:
      REQUIRE((call == Completer::Waitsome ? MPI_Waitsome(n, rq, &got, indices, packed)
                                           : MPI_Testsome(n, rq, &got, indices, packed)) ==
              MPI_SUCCESS);
      if (got == MPI_UNDEFINED) return 0;
      for (int k = 0; k < got; ++k) st[indices[k]] = packed[k];
      return got;
    case Completer::Testall:
      for (int i = 0; i < n; ++i) got += rq[i] != MPI_REQUEST_NULL;
      REQUIRE(MPI_Testall(n, rq, &flag, st) == MPI_SUCCESS);
      return flag ? got : 0;
  }
  return 0;
}

}  // namespace

TEST_CASE("two ranks: a polled set of the lane is kept between calls until something changes it",
          "[two_ranks][requests]") {
  const int peer = pair_peer();
  if (peer < 0) return;
  const int me = 1 - peer;
  StateGuard guard;
  const int tag = kTagBase + 320;
  for (Completer call : {Completer::Testany, Completer::Testsome, Completer::Testall}) {
    for (bool reuse : {true, false}) {
      // reuse: the first request completes elsewhere and its slot, under the same handle, holds
      // a new receive; otherwise the program swaps its two handles between the calls.
      INFO(call_name(call) << (reuse ? ", a slot reused" : ", handles swapped"));
      int in[3] = {-7, -7, -7};
      MPI_Request rq[2];
      MPI_Status st[2];
      REQUIRE(MPI_Irecv(&in[0], 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &rq[0]) == MPI_SUCCESS);
      REQUIRE(MPI_Irecv(&in[1], 1, MPI_INT, peer, tag + 1, MPI_COMM_WORLD, &rq[1]) == MPI_SUCCESS);
      const MPI_Request first = rq[0];
      const uint64_t gathers = g_set_gathers;
      CHECK(complete_some(call, 2, rq, st) == 0);  // the peer sends only after the barrier
      CHECK(complete_some(call, 2, rq, st) == 0);
      CHECK(g_set_gathers == gathers + 1);  // the second call used the first one's set
      REQUIRE(PMPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
      const int values[3] = {me * 10 + 1, me * 10 + 2, me * 10 + 3};
      int expected_tags[2] = {tag + 2, tag + 1};
      // A receive of MPICH's own (no c3 header), made where MPICH likely reuses the request the
      // MPI_Wait below frees: a set kept from before would poll it in place of the new receive.
      MPI_Request raw = MPI_REQUEST_NULL;
      int raw_in = -7;
      if (reuse) {
        REQUIRE(MPI_Send(&values[0], 1, MPI_INT, peer, tag, MPI_COMM_WORLD) == MPI_SUCCESS);
        REQUIRE(MPI_Wait(&rq[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(in[0] == peer * 10 + 1);
        REQUIRE(PMPI_Irecv(&raw_in, 1, MPI_INT, peer, tag + 5, MPI_COMM_WORLD, &raw) ==
                MPI_SUCCESS);
        REQUIRE(MPI_Irecv(&in[2], 1, MPI_INT, peer, tag + 2, MPI_COMM_WORLD, &rq[0]) ==
                MPI_SUCCESS);
        REQUIRE(rq[0] == first);  // the handle the set holds, now of another request
        REQUIRE(PMPI_Send(&values[0], 1, MPI_INT, peer, tag + 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        REQUIRE(MPI_Send(&values[2], 1, MPI_INT, peer, tag + 2, MPI_COMM_WORLD) == MPI_SUCCESS);
      } else {
        std::swap(rq[0], rq[1]);
        expected_tags[0] = tag + 1;
        expected_tags[1] = tag;
        REQUIRE(MPI_Send(&values[0], 1, MPI_INT, peer, tag, MPI_COMM_WORLD) == MPI_SUCCESS);
      }
      REQUIRE(MPI_Send(&values[1], 1, MPI_INT, peer, tag + 1, MPI_COMM_WORLD) == MPI_SUCCESS);
      for (MPI_Status &s : st) s = unset_status();
      for (int done = 0; done < 2;) done += complete_some(call, 2, rq, st);
      CHECK(g_set_gathers >= gathers + 2);  // gathered anew after the change
      for (MPI_Request h : rq) CHECK(h == MPI_REQUEST_NULL);
      CHECK(in[1] == peer * 10 + 2);
      CHECK(in[reuse ? 2 : 0] == peer * 10 + (reuse ? 3 : 1));
      for (int i = 0; i < 2; ++i) {
        CHECK(st[i].MPI_TAG == expected_tags[i]);
        CHECK(st[i].MPI_SOURCE == peer);
      }
      if (reuse) {
        REQUIRE(PMPI_Wait(&raw, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(raw_in == peer * 10 + 1);
      }
    }
  }
}

TEST_CASE("two ranks: the small-message lane (MPI_Isend, MPI_Irecv, MPI_Waitall before the Entry)",
          "[two_ranks][requests]") {
  const int peer = pair_peer();
  if (peer < 0) return;
  const int me = 1 - peer;
  StateGuard guard;
  auto live = [] { return state().requests.size() - g_free_slots.size() - g_small_slots.size(); };
  const size_t live_before = live();
  ProtocolState &st = state();
  const int colour = int(st.epoch & 3);

  SECTION("five messages each way, a null request among them, statuses") {
    const int counts[5] = {0, 1, 7, 15, 15};  // 15 ints: 60 bytes, the most the lane carries
    std::vector<int> out[5], in[5];
    MPI_Request rq[11];
    MPI_Status stat[11];
    for (int j = 0; j < 5; ++j) {
      in[j].assign(16, -7);
      const int source = j == 3 ? MPI_ANY_SOURCE : peer, tag = j == 4 ? MPI_ANY_TAG : kTagBase + 60 + j;
      REQUIRE(MPI_Irecv(in[j].data(), 15, MPI_INT, source, tag, MPI_COMM_WORLD, &rq[j]) == MPI_SUCCESS);
    }
    rq[5] = MPI_REQUEST_NULL;
    const uint64_t sent_before = st.sent[size_t(peer)];
    const uint64_t received_before = st.received[size_t(colour)][size_t(peer)];
    const size_t small_before = g_small_slots.size();
    for (int j = 0; j < 5; ++j) {
      out[j].resize(size_t(counts[j]) + 1);
      for (int i = 0; i < counts[j]; ++i) out[j][size_t(i)] = me * 1000 + j * 100 + i;
      REQUIRE(MPI_Isend(out[j].data(), counts[j], MPI_INT, peer, kTagBase + 60 + j, MPI_COMM_WORLD,
                        &rq[6 + j]) == MPI_SUCCESS);
    }
    CHECK(st.sent[size_t(peer)] == sent_before + 5);
    for (MPI_Request h : rq)
      if (h != MPI_REQUEST_NULL) CHECK(request_of(h).small);
    for (MPI_Status &s : stat) s.MPI_ERROR = 77;
    REQUIRE(MPI_Waitall(11, rq, stat) == MPI_SUCCESS);
    for (MPI_Request h : rq) CHECK(h == MPI_REQUEST_NULL);
    CHECK(st.received[size_t(colour)][size_t(peer)] == received_before + 5);
    for (int j = 0; j < 5; ++j) {
      check_arrival(in[j], counts[j], peer * 1000 + j * 100, &stat[j], peer, kTagBase + 60 + j);
      CHECK(stat[j].MPI_ERROR == MPI_SUCCESS);
      CHECK(stat[6 + j].MPI_ERROR == MPI_SUCCESS);
    }
    CHECK(stat[5].MPI_SOURCE == MPI_ANY_SOURCE);  // the null request's empty status
    CHECK(stat[5].MPI_ERROR == 77);
    CHECK(g_small_slots.size() >= small_before + 10);  // the lane's entries went back to it
  }

  SECTION("lane requests completed by other calls") {
    int in[4] = {-1, -1, -1, -1}, out[2] = {me, me + 10};
    MPI_Request r[4];
    MPI_Status s;
    REQUIRE(MPI_Irecv(&in[0], 1, MPI_INT, peer, kTagBase + 70, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    REQUIRE(MPI_Irecv(&in[1], 1, MPI_INT, peer, kTagBase + 71, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
    REQUIRE(MPI_Irecv(&in[2], 1, MPI_INT, peer, kTagBase + 79, MPI_COMM_WORLD, &r[2]) == MPI_SUCCESS);
    REQUIRE(MPI_Isend(&out[0], 1, MPI_INT, peer, kTagBase + 70, MPI_COMM_WORLD, &r[3]) == MPI_SUCCESS);
    MPI_Request freed;
    REQUIRE(MPI_Isend(&out[1], 1, MPI_INT, peer, kTagBase + 71, MPI_COMM_WORLD, &freed) == MPI_SUCCESS);
    REQUIRE(MPI_Request_free(&freed) == MPI_SUCCESS);  // completes inside c3
    REQUIRE(MPI_Wait(&r[0], &s) == MPI_SUCCESS);
    CHECK(in[0] == peer);
    CHECK(s.MPI_SOURCE == peer);
    for (int flag = 0; !flag;) REQUIRE(MPI_Test(&r[1], &flag, &s) == MPI_SUCCESS);
    CHECK(in[1] == peer + 10);
    REQUIRE(MPI_Cancel(&r[2]) == MPI_SUCCESS);  // nobody sends with that tag
    REQUIRE(MPI_Wait(&r[2], &s) == MPI_SUCCESS);
    int cancelled = 0;
    MPI_Test_cancelled(&s, &cancelled);
    CHECK(cancelled);
    CHECK(in[2] == -1);
    REQUIRE(MPI_Wait(&r[3], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    REQUIRE(PMPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);  // both requests freed by now
    complete_orphans(true);
  }

  SECTION("small messages on a communicator whose ranks are the world's reversed") {
    MPI_Comm reversed;
    REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, 0, -me, &reversed) == MPI_SUCCESS);
    int mine = -1;
    MPI_Comm_rank(reversed, &mine);
    REQUIRE(mine == 1 - me);
    int in = -1, out = 100 + me;
    MPI_Request r[2];
    const uint64_t received_before = st.received[size_t(colour)][size_t(peer)];
    REQUIRE(MPI_Irecv(&in, 1, MPI_INT, me, kTagBase + 75, reversed, &r[0]) == MPI_SUCCESS);
    REQUIRE(MPI_Isend(&out, 1, MPI_INT, me, kTagBase + 75, reversed, &r[1]) == MPI_SUCCESS);
    MPI_Status s[2];
    REQUIRE(MPI_Waitall(2, r, s) == MPI_SUCCESS);
    CHECK(in == 100 + peer);
    CHECK(s[0].MPI_SOURCE == me);  // the peer's rank in `reversed`
    CHECK(st.received[size_t(colour)][size_t(peer)] == received_before + 1);  // by world rank
    REQUIRE(MPI_Comm_free(&reversed) == MPI_SUCCESS);
  }

  SECTION("MPI_Wait finishes lane requests in place, statuses as MPI_Wait gives them") {
    const int counts[4] = {0, 1, 15, 1024};  // 1024 ints: a bounce above the slot's 64 bytes
    std::vector<int> out[4], in[4];
    MPI_Request recvs[4], sends[4];
    for (int j = 0; j < 4; ++j) {
      in[j].assign(size_t(counts[j]) + 1, -7);
      REQUIRE(MPI_Irecv(in[j].data(), counts[j], MPI_INT, j == 2 ? MPI_ANY_SOURCE : peer,
                        j == 3 ? MPI_ANY_TAG : kTagBase + 90 + j, MPI_COMM_WORLD,
                        &recvs[j]) == MPI_SUCCESS);
    }
    const uint64_t received_before = st.received[size_t(colour)][size_t(peer)];
    for (int j = 0; j < 4; ++j) {
      out[j].resize(size_t(counts[j]) + 1);
      for (int i = 0; i < counts[j]; ++i) out[j][size_t(i)] = me * 100000 + j * 10000 + i;
      REQUIRE(MPI_Isend(out[j].data(), counts[j], MPI_INT, peer, kTagBase + 90 + j, MPI_COMM_WORLD,
                        &sends[j]) == MPI_SUCCESS);
      CHECK(request_of(sends[j]).small);
    }
    const size_t small_before = g_small_slots.size();
    for (int j = 0; j < 4; ++j) {
      MPI_Status s;
      s.MPI_ERROR = 77;
      s.MPI_SOURCE = -5;
      REQUIRE(MPI_Wait(&sends[j], j == 1 ? MPI_STATUS_IGNORE : &s) == MPI_SUCCESS);
      CHECK(sends[j] == MPI_REQUEST_NULL);
      CHECK(s.MPI_ERROR == 77);     // a single completion leaves it alone
      CHECK(s.MPI_SOURCE == -5);    // of a send's status MPICH sets only the cancelled flag
      s.MPI_ERROR = 77;
      REQUIRE(MPI_Wait(&recvs[j], j == 1 ? MPI_STATUS_IGNORE : &s) == MPI_SUCCESS);
      CHECK(recvs[j] == MPI_REQUEST_NULL);
      check_arrival(in[j], counts[j], peer * 100000 + j * 10000, j == 1 ? nullptr : &s, peer,
                    kTagBase + 90 + j);
      if (j != 1) CHECK(s.MPI_ERROR == 77);
    }
    CHECK(st.received[size_t(colour)][size_t(peer)] == received_before + 4);
    CHECK(g_small_slots.size() == small_before + 8);  // every entry back to the lane
  }

  SECTION("MPI_Test finishes lane requests in place once they complete") {
    int in[2] = {-1, -1}, out = 7 + me;
    MPI_Request r, sent;
    REQUIRE(MPI_Irecv(in, 1, MPI_INT, peer, kTagBase + 95, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    const uint64_t received_before = st.received[size_t(colour)][size_t(peer)];
    const size_t small_before = g_small_slots.size();
    int flag = -1;
    MPI_Status s;
    s.MPI_ERROR = 77;
    REQUIRE(MPI_Test(&r, &flag, &s) == MPI_SUCCESS);  // the peer sends only after the barrier
    CHECK(flag == 0);
    CHECK(r != MPI_REQUEST_NULL);
    CHECK(request_of(r).small);  // still the lane's
    REQUIRE(PMPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    REQUIRE(MPI_Isend(&out, 1, MPI_INT, peer, kTagBase + 95, MPI_COMM_WORLD, &sent) == MPI_SUCCESS);
    for (flag = 0; !flag;) REQUIRE(MPI_Test(&sent, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(sent == MPI_REQUEST_NULL);
    for (flag = 0; !flag;) REQUIRE(MPI_Test(&r, &flag, &s) == MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    CHECK(in[0] == 7 + peer);
    CHECK(in[1] == -1);
    int count = -1;
    PMPI_Get_count(&s, MPI_INT, &count);
    CHECK(count == 1);
    CHECK(s.MPI_SOURCE == peer);
    CHECK(s.MPI_TAG == kTagBase + 95);
    CHECK(s.MPI_ERROR == 77);
    CHECK(st.received[size_t(colour)][size_t(peer)] == received_before + 1);
    CHECK(g_small_slots.size() == small_before + 2);
  }

  SECTION("the set calls finish lane requests in place, statuses as the general path gives them") {
    for (Completer call : kSetCalls) {
      INFO(call_name(call));
      const int counts[3] = {0, 1, 1024};  // 1024 ints: a bounce above the slot's 64 bytes
      std::vector<int> out[3], in[3];
      MPI_Request recvs[4], sends[4];  // index 1: MPI_REQUEST_NULL
      MPI_Status rs[4], ss[4];
      for (int j = 0; j < 3; ++j) {
        in[j].assign(size_t(counts[j]) + 1, -7);
        REQUIRE(MPI_Irecv(in[j].data(), counts[j] + (j == 1), MPI_INT, j == 2 ? MPI_ANY_SOURCE : peer,
                          j == 1 ? MPI_ANY_TAG : kTagBase + 90 + j, MPI_COMM_WORLD,
                          &recvs[j == 0 ? 0 : j + 1]) == MPI_SUCCESS);
      }
      recvs[1] = sends[1] = MPI_REQUEST_NULL;
      for (int i = 0; i < 4; ++i) rs[i] = ss[i] = unset_status();
      const uint64_t received_before = st.received[size_t(colour)][size_t(peer)];
      if (call != Completer::Waitsome) {  // the peer sends only after the barrier
        MPI_Request copy[4];
        std::copy(recvs, recvs + 4, copy);
        CHECK(complete_some(call, 4, recvs, rs) == 0);
        CHECK(std::equal(recvs, recvs + 4, copy));
        CHECK(request_of(recvs[0]).small);  // still the lane's
        CHECK(rs[0].MPI_SOURCE == -5);
      }
      REQUIRE(PMPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
      for (int j = 0; j < 3; ++j) {
        out[j].resize(size_t(counts[j]) + 1);
        for (int i = 0; i < counts[j]; ++i) out[j][size_t(i)] = me * 100000 + j * 10000 + i;
        REQUIRE(MPI_Isend(out[j].data(), counts[j], MPI_INT, peer, kTagBase + 90 + j,
                          MPI_COMM_WORLD, &sends[j == 0 ? 0 : j + 1]) == MPI_SUCCESS);
      }
      const size_t small_before = g_small_slots.size();
      for (int done = 0; done < 3;) done += complete_some(call, 4, sends, ss);
      for (int done = 0; done < 3;) done += complete_some(call, 4, recvs, rs);
      for (int i = 0; i < 4; ++i) CHECK(recvs[i] == MPI_REQUEST_NULL);
      for (int i = 0; i < 4; ++i) CHECK(sends[i] == MPI_REQUEST_NULL);
      for (int j = 0; j < 3; ++j) {
        const int i = j == 0 ? 0 : j + 1;
        check_arrival(in[j], counts[j], peer * 100000 + j * 10000, &rs[i], peer, kTagBase + 90 + j);
        CHECK(rs[i].MPI_ERROR == 77);  // left alone, as the general completion does
        CHECK(ss[i].MPI_SOURCE == -5);  // of a send's status MPICH sets only the cancelled flag
        CHECK(ss[i].MPI_ERROR == 77);
      }
      if (call == Completer::Testall) {
        CHECK(rs[1].MPI_SOURCE == MPI_ANY_SOURCE);  // the null request's empty status
        CHECK(rs[1].MPI_TAG == MPI_ANY_TAG);
      } else {
        CHECK(rs[1].MPI_SOURCE == -5);  // no status for it
      }
      CHECK(st.received[size_t(colour)][size_t(peer)] == received_before + 3);
      CHECK(g_small_slots.size() == small_before + 6);  // every entry back to the lane
    }
  }

  SECTION("messages of the next epoch leave every completion call's lane for the general path") {
    // Rank 0 has taken the next checkpoint already (Run mode again): its messages are early for
    // rank 1, which records each of them (a restart suppresses its second sending). Both
    // messages are in before rank 1 completes, so the set calls get them from one MPICH call.
    const uint64_t base = st.epoch;
    int tag = kTagBase + 80;
    for (Completer call : kAllCalls) {
      INFO(call_name(call));
      int in[2] = {-1, -1}, out[2] = {40 + tag, 41 + tag};
      MPI_Request r[2];
      MPI_Status s[2] = {unset_status(), unset_status()};
      if (me == 0) {
        st.epoch = base + 1;
        for (int k = 0; k < 2; ++k)
          REQUIRE(MPI_Isend(&out[k], 1, MPI_INT, peer, tag + k, MPI_COMM_WORLD, &r[k]) == MPI_SUCCESS);
        for (int done = 0; done < 2;) done += complete_some(call, 2, r, s);
        REQUIRE(PMPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
      } else {
        const uint64_t early_before = st.received[size_t((colour + 1) & 3)][size_t(peer)];
        const size_t recorded_before = st.early.size();
        for (int k = 0; k < 2; ++k)
          REQUIRE(MPI_Irecv(&in[k], 1, MPI_INT, peer, tag + k, MPI_COMM_WORLD, &r[k]) == MPI_SUCCESS);
        REQUIRE(PMPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int done = 0; done < 2;) done += complete_some(call, 2, r, s);
        for (int k = 0; k < 2; ++k) {
          CHECK(r[k] == MPI_REQUEST_NULL);
          CHECK(in[k] == 40 + tag + k);
          CHECK(s[k].MPI_SOURCE == peer);
          CHECK(s[k].MPI_TAG == tag + k);
          CHECK(s[k].MPI_ERROR == (call == Completer::Waitall ? MPI_SUCCESS : 77));
          int count = -1;
          PMPI_Get_count(&s[k], MPI_INT, &count);
          CHECK(count == 1);
        }
        CHECK(st.received[size_t((colour + 1) & 3)][size_t(peer)] == early_before + 2);
        CHECK(st.early.size() == recorded_before + 2);
      }
      tag += 2;
    }
  }

  CHECK(live() == live_before);  // every entry freed
}
