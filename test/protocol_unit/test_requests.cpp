// The request table: c3 handles, slot reuse, and a whole send/receive to self through
// start_send/start_recv/wait_request/deliver (the path MPI_Isend/MPI_Irecv/MPI_Wait take).
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <set>

#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "messages/piggyback.hpp"
#include "unit_support.hpp"

using namespace c3::mpi;
using c3::mpi::test::StateGuard;

namespace {

// A guard that also starts from an empty table.
struct EmptyTable : StateGuard {
  EmptyTable() {
    state().requests.clear();
    requests_restored();
  }
};

}  // namespace

TEST_CASE("requests: c3 handles are recognised, MPICH's are not", "[requests]") {
  EmptyTable guard;
  Request *r = nullptr;
  MPI_Request h1 = new_request(Request::Kind::Send, &r);
  MPI_Request h2 = new_request(Request::Kind::Recv, &r);
  CHECK(is_c3_request(h1));
  CHECK(is_c3_request(h2));
  CHECK(h1 != h2);
  CHECK(h1 != MPI_REQUEST_NULL);
  CHECK(uint32_t(MPI_REQUEST_NULL) == 0x2c000000u);
  CHECK_FALSE(is_c3_request(MPI_REQUEST_NULL));
  // MPICH request handles: builtin, direct and indirect kinds of the request object type.
  for (uint32_t real : {0x6c000000u, 0x6c000001u, 0xac000000u, 0xac000001u, 0xac0003ffu,
                        0xec000000u, 0xec012345u}) {
    INFO("handle " << std::hex << real);
    CHECK_FALSE(is_c3_request(MPI_Request(int(real))));
  }
  // Other object types and garbage.
  for (uint32_t other : {0u, 1u, 0x44000000u, 0x4c000405u, 0x24000001u, 0x30000001u,
                         0x2e000001u, 0xffffffffu}) {
    INFO("handle " << std::hex << other);
    CHECK_FALSE(is_c3_request(MPI_Request(int(other))));
  }
  // Real requests from MPICH.
  int in = 0, out = 5;
  MPI_Request real_recv, real_send;
  PMPI_Irecv(&in, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &real_recv);
  CHECK_FALSE(is_c3_request(real_recv));
  PMPI_Isend(&out, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &real_send);
  CHECK_FALSE(is_c3_request(real_send));
  PMPI_Wait(&real_send, MPI_STATUS_IGNORE);
  PMPI_Wait(&real_recv, MPI_STATUS_IGNORE);
  free_request(h1);
  free_request(h2);
}

TEST_CASE("requests: handles name their entries, freed slots are reused", "[requests]") {
  EmptyTable guard;
  Request *a = nullptr, *b = nullptr, *c = nullptr;
  MPI_Request ha = new_request(Request::Kind::Send, &a);
  MPI_Request hb = new_request(Request::Kind::Recv, &b);
  MPI_Request hc = new_request(Request::Kind::Send, &c);
  CHECK(&request_of(ha) == a);
  CHECK(&request_of(hb) == b);
  CHECK(&request_of(hc) == c);
  CHECK(a->kind == Request::Kind::Send);
  CHECK(b->kind == Request::Kind::Recv);
  CHECK(state().requests.size() == 3);

  b->tag = 17;
  b->active = true;
  MPI_Request freed = hb;
  free_request(hb);
  CHECK(hb == MPI_REQUEST_NULL);
  CHECK(state().requests[1].kind == Request::Kind::Free);

  Request *d = nullptr;
  MPI_Request hd = new_request(Request::Kind::Send, &d);
  CHECK(hd == freed);  // the lowest free slot
  CHECK(d == b);
  CHECK(d->tag == 0);  // a fresh entry, nothing left of the old one
  CHECK_FALSE(d->active);
  CHECK(d->kind == Request::Kind::Send);
  CHECK(state().requests.size() == 3);

  // Entries stay where they are while the table grows (the program's requests point there).
  std::set<MPI_Request> handles = {ha, hc, hd};
  std::vector<MPI_Request> more;
  for (int i = 0; i < 1000; ++i) {
    Request *e = nullptr;
    more.push_back(new_request(Request::Kind::Recv, &e));
    CHECK(handles.insert(more.back()).second);
  }
  CHECK(&request_of(ha) == a);
  CHECK(&request_of(hd) == d);
  for (MPI_Request h : more) REQUIRE(is_c3_request(h));
  for (MPI_Request &h : more) free_request(h);
  free_request(ha);
  free_request(hc);
  free_request(hd);
  const size_t table_size = state().requests.size();
  Request *f = nullptr;
  MPI_Request hf = new_request(Request::Kind::Recv, &f);
  CHECK(handles.count(hf) == 1);  // all free: an old slot again
  CHECK(state().requests.size() == table_size);
  free_request(hf);
}

TEST_CASE("requests: a restored table reuses its free slots lowest first", "[requests]") {
  EmptyTable guard;
  // As a restart leaves it: entries 2 and 4 free.
  auto &table = state().requests;
  while (table.size() < 5) table.emplace_back();
  for (size_t i : {0u, 2u, 4u}) table[i].kind = Request::Kind::Send;
  table[1].kind = Request::Kind::Free;
  table[3].kind = Request::Kind::Free;
  requests_restored();
  Request *r = nullptr;
  MPI_Request h1 = new_request(Request::Kind::Recv, &r);
  CHECK(r == &table[1]);
  MPI_Request h2 = new_request(Request::Kind::Recv, &r);
  CHECK(r == &table[3]);
  MPI_Request h3 = new_request(Request::Kind::Recv, &r);
  CHECK(r == &table[5]);  // then the table grows
  CHECK(table.size() == 6);
  CHECK(&request_of(h1) == &table[1]);
  CHECK(&request_of(h2) == &table[3]);
  CHECK(&request_of(h3) == &table[5]);
}

TEST_CASE("requests: entries keep their address while the table grows past many chunks",
          "[requests]") {
  EmptyTable guard;
  std::vector<std::pair<MPI_Request, Request *>> made;
  for (int i = 0; i < 300; ++i) {
    Request *r = nullptr;
    MPI_Request h = new_request(Request::Kind::Send, &r);
    r->tag = i;
    made.emplace_back(h, r);
  }
  CHECK(state().requests.size() == 300);
  for (int i = 0; i < 300; ++i) {
    CHECK(&request_of(made[size_t(i)].first) == made[size_t(i)].second);
    CHECK(request_of(made[size_t(i)].first).tag == i);
  }
  int seen = 0;
  for (const Request &r : state().requests) seen += r.kind == Request::Kind::Send;
  CHECK(seen == 300);
  const RequestTable copy = state().requests;
  REQUIRE(copy.size() == 300);
  CHECK(copy[299].tag == 299);
  CHECK(&copy[299] != made[299].second);
  for (auto &[h, r] : made) free_request(h);
}

TEST_CASE("requests: a stale or foreign handle ends the process", "[requests]") {
  for (const char *scenario : {"request-of-freed", "request-of-never-created", "request-of-foreign",
                               "free-freed"}) {
    INFO(scenario);
    c3::mpi::test::ChildResult r = c3::mpi::test::run_child(scenario);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("c3: error: invalid MPI_Request"));
    CHECK_THAT(r.err, !Catch::Contains("survived"));
  }
}

TEST_CASE("requests: a send and a receive to self through the request table", "[requests]") {
  EmptyTable guard;
  ProtocolState &st = state();
  st.mode = Mode::Run;
  const int me = c3::mpi::test::world_rank();
  const uint64_t sent_before = st.sent[size_t(me)];
  const uint64_t received_before = st.received[st.epoch & 3][size_t(me)];
  const uint64_t posting = st.next_posting;

  for (int n : {3, 9000}) {  // bounced and absolute wire types
    INFO(n << " doubles");
    const size_t elems = size_t(n);
    std::vector<double> out(elems), in(elems + 1, -1.0);
    for (int i = 0; i < n; ++i) out[size_t(i)] = i * 1.5;
    Request *rr = nullptr, *sr = nullptr;
    MPI_Request hr = new_request(Request::Kind::Recv, &rr);
    rr->buf = reinterpret_cast<uintptr_t>(in.data());
    rr->count = n + 1;
    rr->type = MPI_DOUBLE;
    rr->peer = MPI_ANY_SOURCE;
    rr->tag = 21;
    rr->comm = MPI_COMM_SELF;
    REQUIRE(start_recv(*rr) == MPI_SUCCESS);
    MPI_Request hs = new_request(Request::Kind::Send, &sr);
    sr->buf = reinterpret_cast<uintptr_t>(out.data());
    sr->count = n;
    sr->type = MPI_DOUBLE;
    sr->peer = 0;
    sr->tag = 21;
    sr->comm = MPI_COMM_SELF;
    REQUIRE(start_send(*sr) == MPI_SUCCESS);
    wait_request(request_of(hs));
    wait_request(request_of(hr));
    CHECK(request_of(hr).done);
    CHECK(request_of(hr).real == MPI_REQUEST_NULL);
    CHECK(request_of(hr).wire == MPI_DATATYPE_NULL);  // released at completion
    MPI_Status status;
    deliver(hr, &status);
    deliver(hs, MPI_STATUS_IGNORE);
    CHECK(hr == MPI_REQUEST_NULL);  // not persistent: freed
    CHECK(hs == MPI_REQUEST_NULL);
    CHECK(status.MPI_SOURCE == 0);
    CHECK(status.MPI_TAG == 21);
    int count = -1;
    PMPI_Get_count(&status, MPI_DOUBLE, &count);
    CHECK(count == n);
    CHECK(std::memcmp(in.data(), out.data(), size_t(n) * sizeof(double)) == 0);
    CHECK(in.back() == -1.0);
  }
  CHECK(st.sent[size_t(me)] == sent_before + 2);
  CHECK(st.received[st.epoch & 3][size_t(me)] == received_before + 2);
  CHECK(st.next_posting == posting + 2);
  CHECK(st.log.resolutions.empty());  // Run mode logs no wildcard matches
}

TEST_CASE("requests: MPI_PROC_NULL peers complete at once", "[requests]") {
  EmptyTable guard;
  Request *r = nullptr;
  MPI_Request h = new_request(Request::Kind::Recv, &r);
  r->peer = MPI_PROC_NULL;
  r->comm = MPI_COMM_WORLD;
  r->type = MPI_INT;
  r->count = 4;
  REQUIRE(start_recv(*r) == MPI_SUCCESS);
  CHECK(test_request(*r));
  MPI_Status status;
  deliver(h, &status);
  CHECK(status.MPI_SOURCE == MPI_PROC_NULL);
  CHECK(status.MPI_TAG == MPI_ANY_TAG);
  int count = -1;
  PMPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == 0);
}

TEST_CASE("requests: persistent requests survive delivery", "[requests]") {
  EmptyTable guard;
  Request *r = nullptr;
  MPI_Request h = new_request(Request::Kind::Send, &r);
  r->persistent = true;
  r->peer = MPI_PROC_NULL;
  r->comm = MPI_COMM_WORLD;
  for (int round = 0; round < 3; ++round) {
    REQUIRE(start_send(*r) == MPI_SUCCESS);
    CHECK(r->active);
    CHECK(test_request(*r));
    MPI_Request copy = h;
    deliver(copy, MPI_STATUS_IGNORE);
    CHECK(copy == h);
    CHECK_FALSE(r->active);
  }
  free_request(h);
}

// A receive the program cancelled before the checkpoint, not complete at it: the restarted
// program does not call MPI_Cancel again, so the restart asks for it (or replays the logged
// outcome of the cancel: succeeded, or lost to a message).
TEST_CASE("requests: a cancel asked before the checkpoint is asked again at restart",
          "[requests]") {
  EmptyTable guard;
  ProtocolState &st = state();
  const int me = c3::mpi::test::world_rank();
  const int tag = 7520;
  int got = -1;
  // The checkpointed table: one active receive whose cancel was asked.
  auto checkpointed_receive = [&](uint64_t posting) {
    Request *r = nullptr;
    MPI_Request h = new_request(Request::Kind::Recv, &r);
    r->active = true;
    r->buf = reinterpret_cast<uintptr_t>(&got);
    r->count = 1;
    r->type = MPI_INT;
    r->peer = me;
    r->tag = tag;
    r->comm = MPI_COMM_WORLD;
    r->posting = posting;
    r->cancel_asked = true;
    return h;
  };
  auto restart = [&](std::map<uint64_t, int> cancelled) {
    st.mode = Mode::Restore;
    st.replay = CheckpointLog{};
    st.replay.cancelled = std::move(cancelled);
    st.pool.clear();
    st.was_early.clear();
    st.next_posting = 100;
    repost_after_restart();
  };
  auto cancelled = [](MPI_Request &h) {
    MPI_Status status;
    wait_request(request_of(h));
    deliver(h, &status);
    int flag = -1;
    PMPI_Test_cancelled(&status, &flag);
    return flag;
  };
  SECTION("nothing logged: cancelled live") {
    MPI_Request h = checkpointed_receive(40);
    restart({});
    CHECK(request_of(h).cancel_asked);
    CHECK(cancelled(h) == 1);
  }
  SECTION("logged as cancelled: nothing is posted") {
    MPI_Request h = checkpointed_receive(41);
    restart({{41, 1}});
    CHECK(request_of(h).real == MPI_REQUEST_NULL);
    CHECK(cancelled(h) == 1);
  }
  SECTION("logged as lost: the receive gets its message") {
    MPI_Request h = checkpointed_receive(42);
    restart({{42, 0}});
    CHECK(request_of(h).real != MPI_REQUEST_NULL);
    int value = 31;
    MPI_Request send = MPI_REQUEST_NULL;
    const int32_t header = piggyback::make_header(st.epoch, false);
    unsigned char wire[8];
    std::memcpy(wire, &header, 4);
    std::memcpy(wire + 4, &value, 4);
    PMPI_Isend(wire, 8, MPI_BYTE, me, tag, MPI_COMM_WORLD, &send);
    CHECK(cancelled(h) == 0);
    CHECK(got == 31);
    PMPI_Wait(&send, MPI_STATUS_IGNORE);
  }
}

// Regression (campaign-0acac1e, seed 340): a later wildcard receive's match was logged while an
// earlier one, which had its message already, completed only after the log ended; the restart
// left the earlier one free and it took the later one's pinned message (a hang).
TEST_CASE("requests: logging a match first completes and logs earlier wildcard receives",
          "[requests]") {
  EmptyTable guard;
  ProtocolState &st = state();
  const int me = c3::mpi::test::world_rank();
  const int tag = 7530;
  std::fill(st.initiated.begin(), st.initiated.end(), 0);  // no mode change meanwhile
  st.log = CheckpointLog{};
  int a = -1, b = -1, first = 1, second = 2;
  MPI_Request ra, rb, sends[2];
  auto exchange = [&] {
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &ra);
    MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &rb);
    MPI_Isend(&first, 1, MPI_INT, me, tag, MPI_COMM_WORLD, &sends[0]);
    MPI_Isend(&second, 1, MPI_INT, me, tag, MPI_COMM_WORLD, &sends[1]);
    MPI_Wait(&rb, MPI_STATUS_IGNORE);  // the later receive first
  };
  SECTION("NonDet-Log") {
    st.mode = Mode::NonDetLog;
    update_attention();
    const uint64_t posting = st.next_posting;
    exchange();
    CHECK(request_of(ra).done);  // completed with it, before its match was logged
    CHECK(st.log.resolutions.count(posting) == 1);
    CHECK(st.log.resolutions.count(posting + 1) == 1);
  }
  SECTION("NonDet-Log, the later receive a blocking MPI_Recv (c3's fast path)") {
    st.mode = Mode::NonDetLog;
    update_attention();
    const uint64_t posting = st.next_posting;
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &ra);
    MPI_Isend(&first, 1, MPI_INT, me, tag, MPI_COMM_WORLD, &sends[0]);
    MPI_Isend(&second, 1, MPI_INT, me, tag, MPI_COMM_WORLD, &sends[1]);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(request_of(ra).done);
    CHECK(st.log.resolutions.count(posting) == 1);
    CHECK(st.log.resolutions.count(posting + 1) == 1);
  }
  SECTION("Run: nothing is logged, nothing completed early") {
    st.mode = Mode::Run;
    update_attention();
    exchange();
    CHECK(st.log.resolutions.empty());
  }
  MPI_Wait(&ra, MPI_STATUS_IGNORE);
  MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
  CHECK(a == 1);
  CHECK(b == 2);
}
