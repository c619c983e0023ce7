// Large messages on MPI_COMM_WORLD travel split (split_transfer.hpp): checked through the real
// hooks (MPI_Isend, MPI_Irecv, MPI_Wait... resolve to c3's wrappers here). Messages to itself run
// in the serial job too; tests between processes skip themselves when the job has one rank.
// Every test checks what the program sees (payload, order, status counts) and that c3 is left
// clean: no receive still counted as awaiting a header, no payload still pending.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "layer/layer.hpp"
#include "messages/message_registry.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"
#include "nondet/nondet.hpp"
#include "messages/piggyback.hpp"
#include "messages/split_transfer.hpp"
#include "unit_support.hpp"

using namespace c3::mpi;
using c3::mpi::test::have_two_ranks;
using c3::mpi::test::Bytes;
using c3::mpi::test::buffer;
using c3::mpi::test::holds;
using c3::mpi::test::pair_peer;
using c3::mpi::test::world_rank;

namespace {

constexpr int kTagBase = 7300;
constexpr int kLarge = int(piggyback::kBounceLimit) + 1;  // the smallest split message

unsigned char pattern(size_t i, unsigned seed) {
  return static_cast<unsigned char>(i * 31u + (i >> 9) * 7u + seed * 101u + (seed >> 3));
}

Bytes payload(size_t bytes, unsigned seed) {
  Bytes b(bytes);
  for (size_t i = 0; i < bytes; ++i) b[i] = pattern(i, seed);
  return b;
}



int count_of(const MPI_Status &st, MPI_Datatype type) {
  int count = -1;
  MPI_Get_count(&st, type, &count);
  return count;
}

size_t payloads_pending() {
  size_t n = 0;
  for (const Request &r : state().requests) n += r.payload_pending;
  return n;
}

size_t receives_awaiting_headers() {
  size_t n = 0;
  for (const Request &r : state().requests) n += r.awaits_header;
  return n;
}

// c3 holds nothing of a finished exchange: every test ends with this.
void check_clean() {
  CHECK(rt().awaiting.size() == 0);
  CHECK(receives_awaiting_headers() == 0);
  CHECK(payloads_pending() == 0);
  CHECK(rt().split_messages.empty());
}

// How the program completes a set of receives.
enum class Completion { Wait, TestLoop, Waitany, Waitall, Testall, Testsome, Waitsome };

const char *name_of(Completion c) {
  switch (c) {
    case Completion::Wait: return "MPI_Wait";
    case Completion::TestLoop: return "MPI_Test";
    case Completion::Waitany: return "MPI_Waitany";
    case Completion::Waitall: return "MPI_Waitall";
    case Completion::Testall: return "MPI_Testall";
    case Completion::Testsome: return "MPI_Testsome";
    case Completion::Waitsome: return "MPI_Waitsome";
  }
  return "?";
}

// Completes every request of `reqs`, in array order where the call allows a choice; statuses
// land at the request's index.
void complete_all(Completion how, std::vector<MPI_Request> &reqs, std::vector<MPI_Status> &sts) {
  const int n = int(reqs.size());
  sts.assign(reqs.size(), MPI_Status{});
  switch (how) {
    case Completion::Wait:
      for (int i = 0; i < n; ++i) MPI_Wait(&reqs[size_t(i)], &sts[size_t(i)]);
      break;
    case Completion::TestLoop:
      for (int i = 0; i < n; ++i)
        for (int flag = 0; !flag;) MPI_Test(&reqs[size_t(i)], &flag, &sts[size_t(i)]);
      break;
    case Completion::Waitany:
      for (int k = 0; k < n; ++k) {
        int index = -1;
        MPI_Status st;
        MPI_Waitany(n, reqs.data(), &index, &st);
        REQUIRE(index >= 0);
        sts[size_t(index)] = st;
      }
      break;
    case Completion::Waitall:
      MPI_Waitall(n, reqs.data(), sts.data());
      break;
    case Completion::Testall:
      for (int flag = 0; !flag;) MPI_Testall(n, reqs.data(), &flag, sts.data());
      break;
    case Completion::Testsome:
    case Completion::Waitsome:
      for (int done = 0; done < n;) {
        int outcount = 0;
        std::vector<int> indices(static_cast<size_t>(n), -1);
        std::vector<MPI_Status> got(static_cast<size_t>(n));
        if (how == Completion::Testsome)
          MPI_Testsome(n, reqs.data(), &outcount, indices.data(), got.data());
        else
          MPI_Waitsome(n, reqs.data(), &outcount, indices.data(), got.data());
        REQUIRE(outcount != MPI_UNDEFINED);
        for (int k = 0; k < outcount; ++k) sts[size_t(indices[size_t(k)])] = got[size_t(k)];
        done += outcount;
      }
      break;
  }
}

// How the receiver keeps calling MPI while its peer is blocked sending it a large message.
enum class Polling { Test, Testany, Testall, Testsome, GetStatus, Iprobe, Improbe };

const char *name_of(Polling p) {
  switch (p) {
    case Polling::Test: return "MPI_Test";
    case Polling::Testany: return "MPI_Testany";
    case Polling::Testall: return "MPI_Testall";
    case Polling::Testsome: return "MPI_Testsome";
    case Polling::GetStatus: return "MPI_Request_get_status";
    case Polling::Iprobe: return "MPI_Iprobe";
    case Polling::Improbe: return "MPI_Improbe";
  }
  return "?";
}

// A call that must not block forever: if the scope is still open after `seconds`, the process
// says which pattern hung and exits (a hang inside MPICH cannot be recovered from). The thread
// makes no MPI call.
class Watchdog {
 public:
  Watchdog(std::string what, int seconds)
      : what_(std::move(what)), thread_([this, seconds] { watch(seconds); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      over_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

 private:
  void watch(int seconds) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return over_; })) return;
    std::fprintf(stderr, "rank %d: hung for %d s: %s\n", world_rank(), seconds, what_.c_str());
    std::fflush(stderr);
    _exit(3);
  }
  std::string what_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool over_ = false;
  std::thread thread_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("split: which receives await a split header", "[split]") {
  check_clean();
  const int me = world_rank(), tag = kTagBase;
  Bytes large = buffer(kLarge), bounce_limit = buffer(size_t(piggyback::kBounceLimit)),
        other_comm = buffer(kLarge);
  std::vector<int> ints(5000);  // 20000 bytes
  MPI_Request rq[4];
  // A wildcard source: a large receive from one source asks it to split everything, and then
  // every receive awaits a header (test_payload_prepost.cpp).
  MPI_Irecv(large.data(), kLarge, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &rq[0]);
  CHECK(rt().awaiting.size() == 1);
  CHECK(request_of(rq[0]).awaits_header);
  MPI_Irecv(bounce_limit.data(), int(bounce_limit.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD,
            &rq[1]);
  CHECK(rt().awaiting.size() == 1);  // a message for it is never split
  MPI_Irecv(ints.data(), 5000, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &rq[2]);
  CHECK(rt().awaiting.size() == 2);
  MPI_Irecv(other_comm.data(), kLarge, MPI_BYTE, 0, tag, MPI_COMM_SELF, &rq[3]);
  CHECK(rt().awaiting.size() == 2);  // only MPI_COMM_WORLD has split messages
  CHECK(split::must_poll());
  // In posting order, each receive takes one of these.
  const Bytes first = payload(size_t(kLarge), 1), second = payload(bounce_limit.size(), 2),
              third = payload(20000, 3), fourth = payload(size_t(kLarge), 4);
  MPI_Send(first.data(), kLarge, MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Send(second.data(), int(second.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Send(third.data(), 20000, MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Send(fourth.data(), kLarge, MPI_BYTE, 0, tag, MPI_COMM_SELF);
  MPI_Status sts[4];
  MPI_Waitall(4, rq, sts);
  CHECK_FALSE(split::must_poll());
  CHECK(holds(large, first));
  CHECK(holds(bounce_limit, second));
  CHECK(std::memcmp(ints.data(), third.data(), third.size()) == 0);
  CHECK(count_of(sts[2], MPI_INT) == 5000);
  CHECK(holds(other_comm, fourth));
  check_clean();
}

TEST_CASE("split: a cancelled large receive no longer awaits a header", "[split]") {
  const int me = world_rank(), tag = kTagBase + 1;
  Bytes large = buffer(kLarge);
  MPI_Request recv;
  MPI_Irecv(large.data(), kLarge, MPI_BYTE, me, tag, MPI_COMM_WORLD, &recv);
  CHECK(rt().awaiting.size() == 1);
  MPI_Cancel(&recv);
  MPI_Status st;
  MPI_Wait(&recv, &st);
  int cancelled = 0;
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(cancelled);
  CHECK(rt().awaiting.size() == 0);

  // A persistent receive awaits a header only while it is active.
  MPI_Request persistent;
  MPI_Recv_init(large.data(), kLarge, MPI_BYTE, me, tag, MPI_COMM_WORLD, &persistent);
  CHECK(rt().awaiting.size() == 0);
  for (int round = 0; round < 2; ++round) {
    MPI_Start(&persistent);
    CHECK(rt().awaiting.size() == 1);
    MPI_Cancel(&persistent);
    MPI_Wait(&persistent, &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled);
    CHECK(rt().awaiting.size() == 0);
  }
  MPI_Request_free(&persistent);
  check_clean();
}

// MPI_Isend never waits for the receiver, also to itself. (The split header used to leave with a
// blocking MPI_Send, which MPICH's ch4:ucx in a one-rank job does not complete before a receive
// is posted.)
TEST_CASE("split: a nonblocking large send to itself returns before its receive is posted",
          "[split]") {
  const int me = world_rank(), tag = kTagBase + 5;
  const Bytes sent = payload(size_t(kLarge), 5);
  Bytes got = buffer(size_t(kLarge));
  MPI_Request send;
  {
    Watchdog watchdog("MPI_Isend of a large message to itself, no receive posted", 10);
    MPI_Isend(sent.data(), kLarge, MPI_BYTE, me, tag, MPI_COMM_WORLD, &send);
  }
  MPI_Status st;
  MPI_Recv(got.data(), kLarge, MPI_BYTE, me, tag, MPI_COMM_WORLD, &st);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  CHECK(count_of(st, MPI_BYTE) == kLarge);
  CHECK(holds(got, sent));
  check_clean();
}

// The requests of split headers are kept until MPICH completes them, reaped a window at a time:
// a long stream of large messages leaves only the last window's.
TEST_CASE("split: a stream of large messages keeps a bounded number of header requests",
          "[split]") {
  const int me = world_rank(), tag = kTagBase + 6;
  const Bytes sent = payload(size_t(kLarge), 6);
  Bytes got = buffer(size_t(kLarge));
  size_t most = 0;
  for (int i = 0; i < 1000; ++i) {
    MPI_Request send;
    MPI_Isend(sent.data(), kLarge, MPI_BYTE, me, tag, MPI_COMM_WORLD, &send);
    MPI_Recv(got.data(), kLarge, MPI_BYTE, me, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    most = std::max(most, split::header_sends_kept());
  }
  CHECK(holds(got, sent));
  CHECK(most >= 1);    // kept until reaped
  CHECK(most <= 128);  // and reaped
  check_clean();
}

TEST_CASE("split: messages at the bounce limit and just above it", "[split]") {
  const int me = world_rank(), tag = kTagBase + 10;
  for (int bytes : {int(piggyback::kBounceLimit) - 1, int(piggyback::kBounceLimit), kLarge,
                    kLarge + 1}) {
    INFO(bytes << " bytes");
    const Bytes sent = payload(size_t(bytes), unsigned(bytes));
    Bytes got = buffer(size_t(kLarge) + 100);
    MPI_Request send, recv;
    // A wildcard source: from one source, a large receive asks it to split everything.
    MPI_Irecv(got.data(), int(got.size()), MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &recv);
    MPI_Isend(sent.data(), bytes, MPI_BYTE, me, tag, MPI_COMM_WORLD, &send);
    // Only a message above the limit leaves its payload apart.
    CHECK(request_of(send).split_send == (bytes > piggyback::kBounceLimit));
    MPI_Status st;
    MPI_Wait(&recv, &st);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    CHECK(count_of(st, MPI_BYTE) == bytes);
    CHECK(st.MPI_SOURCE == me);
    CHECK(st.MPI_TAG == tag);
    CHECK(holds(got, sent));
  }
  check_clean();
}

TEST_CASE("split: a wildcard receive posted first gets the first message whatever completes first",
          "[split]") {
  const Completion how =
      GENERATE(Completion::Wait, Completion::TestLoop, Completion::Waitany, Completion::Waitall,
               Completion::Testall, Completion::Testsome, Completion::Waitsome);
  INFO("completed by " << name_of(how));
  const int me = world_rank(), tag = kTagBase + 20 + int(how);
  const Bytes first = payload(20000, 1), second = payload(70001, 2);
  Bytes wild = buffer(100000), specific = buffer(100000);
  MPI_Request wild_rq, specific_rq, sends[2];
  MPI_Irecv(wild.data(), 100000, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &wild_rq);
  MPI_Irecv(specific.data(), 100000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &specific_rq);
  // To itself, MPICH matches both headers at once: the first call that looks sees both in.
  MPI_Isend(first.data(), 20000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[0]);
  MPI_Isend(second.data(), 70001, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[1]);
  // Reverse order: the specific receive (posted second, so it has the second message) first.
  std::vector<MPI_Request> reqs = {specific_rq, wild_rq};
  std::vector<MPI_Status> sts;
  complete_all(how, reqs, sts);
  CHECK(count_of(sts[0], MPI_BYTE) == 70001);
  CHECK(count_of(sts[1], MPI_BYTE) == 20000);
  CHECK(sts[0].MPI_SOURCE == me);
  CHECK(sts[1].MPI_SOURCE == me);
  CHECK(holds(specific, second));
  CHECK(holds(wild, first));
  MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
  check_clean();
}

TEST_CASE("split: completing a later receive settles the earlier one at once", "[split]") {
  const int me = world_rank(), tag = kTagBase + 30;
  const Bytes first = payload(30000, 3), second = payload(50000, 4);
  Bytes wild = buffer(60000), specific = buffer(60000);
  MPI_Request wild_rq, specific_rq, sends[2];
  MPI_Irecv(wild.data(), 60000, MPI_BYTE, me, MPI_ANY_TAG, MPI_COMM_WORLD, &wild_rq);
  MPI_Irecv(specific.data(), 60000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &specific_rq);
  MPI_Isend(first.data(), 30000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[0]);
  MPI_Isend(second.data(), 50000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[1]);
  MPI_Status st;
  MPI_Wait(&specific_rq, &st);
  CHECK(holds(specific, second));
  // The wildcard receive's payload had to be posted before the specific one's.
  const Request &w = request_of(wild_rq);
  CHECK((w.payload_pending || w.done));
  CHECK_FALSE(w.awaits_header);
  MPI_Wait(&wild_rq, &st);
  CHECK(count_of(st, MPI_BYTE) == 30000);
  CHECK(st.MPI_TAG == tag);
  CHECK(holds(wild, first));
  MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
  check_clean();
}

TEST_CASE("split: a blocking receive behind a pending wildcard receive", "[split]") {
  const int me = world_rank(), tag = kTagBase + 40;
  const Bytes first = payload(40000, 5), second = payload(45000, 6);
  Bytes wild = buffer(50000), blocking = buffer(50000);
  MPI_Request wild_rq, sends[2];
  MPI_Irecv(wild.data(), 50000, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &wild_rq);
  MPI_Isend(first.data(), 40000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[0]);
  MPI_Isend(second.data(), 45000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[1]);
  MPI_Status st;
  MPI_Recv(blocking.data(), 50000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &st);
  CHECK(count_of(st, MPI_BYTE) == 45000);
  CHECK(holds(blocking, second));
  MPI_Wait(&wild_rq, &st);
  CHECK(count_of(st, MPI_BYTE) == 40000);
  CHECK(holds(wild, first));
  MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
  check_clean();
}

TEST_CASE("split: small and large messages on one channel keep their order", "[split]") {
  const int me = world_rank(), tag = kTagBase + 50;
  const std::vector<size_t> sizes = {10, 100000, size_t(piggyback::kBounceLimit), size_t(kLarge),
                                     0, (1u << 20) + 3, 1};
  const size_t capacity = (1u << 20) + 64;
  std::vector<Bytes> sent, got;
  std::vector<MPI_Request> recvs(sizes.size()), sends(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    sent.push_back(payload(sizes[i], unsigned(10 + i)));
    got.push_back(buffer(capacity));
  }
  for (size_t i = 0; i < sizes.size(); ++i)
    MPI_Irecv(got[i].data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &recvs[i]);
  for (size_t i = 0; i < sizes.size(); ++i)
    MPI_Isend(sent[i].data(), int(sizes[i]), MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[i]);
  std::vector<MPI_Status> sts(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) MPI_Wait(&recvs[i], &sts[i]);  // last first
  for (size_t i = 0; i < sizes.size(); ++i) {
    INFO("message " << i << " of " << sizes[i] << " bytes");
    CHECK(count_of(sts[i], MPI_BYTE) == int(sizes[i]));
    CHECK(holds(got[i], sent[i]));
  }
  MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  check_clean();
}

TEST_CASE("split: status counts in the receive's datatype for a larger buffer", "[split]") {
  const int me = world_rank(), tag = kTagBase + 60;
  const Bytes sent = payload(8 * 3001, 20);  // 3001 doubles, 6002 ints
  Bytes got = buffer(8 * 100000);
  MPI_Request send;
  MPI_Isend(sent.data(), 3001, MPI_DOUBLE, me, tag, MPI_COMM_WORLD, &send);
  MPI_Status st;
  MPI_Recv(got.data(), 100000, MPI_DOUBLE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  CHECK(count_of(st, MPI_DOUBLE) == 3001);
  int elements = -1;
  MPI_Get_elements(&st, MPI_DOUBLE, &elements);
  CHECK(elements == 3001);
  MPI_Count bytes = -1;
  MPI_Get_elements_x(&st, MPI_BYTE, &bytes);
  CHECK(bytes == 8 * 3001);
  CHECK(st.MPI_TAG == tag);
  CHECK(holds(got, sent));
  check_clean();
}

TEST_CASE("split: a blocking receive above the limit takes a split payload at once or an inline "
          "message, each counted once", "[split]") {
  // MPI_Recv on MPI_COMM_WORLD above 8 KiB takes the wrapper's short path: the payload of a split
  // message goes straight into the buffer, without a request (fast_paths.hpp, recv_unusual).
  const int me = world_rank(), tag = kTagBase + 65;
  ProtocolState &st = state();
  for (int bytes : {100, int(piggyback::kBounceLimit), kLarge, 40000}) {
    INFO(bytes << " bytes");
    const Bytes sent = payload(size_t(bytes), unsigned(bytes) + 3);
    Bytes got = buffer(50000);
    MPI_Request send;
    MPI_Isend(sent.data(), bytes, MPI_BYTE, me, tag, MPI_COMM_WORLD, &send);
    const uint64_t received = st.received[st.epoch & 3][size_t(me)];
    const size_t table = st.requests.size();
    MPI_Status status;
    status.MPI_ERROR = 12345;  // MPI_Recv leaves it alone
    CHECK(MPI_Recv(got.data(), int(got.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD, &status) ==
          MPI_SUCCESS);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    CHECK(st.received[st.epoch & 3][size_t(me)] == received + 1);
    CHECK(st.requests.size() == table);
    CHECK(count_of(status, MPI_BYTE) == bytes);
    CHECK(status.MPI_SOURCE == me);
    CHECK(status.MPI_TAG == tag);
    CHECK(status.MPI_ERROR == 12345);
    CHECK(holds(got, sent));
  }
  check_clean();
}

TEST_CASE("split: probes report the payload's size", "[split]") {
  const int me = world_rank(), tag = kTagBase + 70;
  const Bytes sent = payload(4 * 30001, 30);
  MPI_Request send;
  MPI_Isend(sent.data(), 30001, MPI_INT, me, tag, MPI_COMM_WORLD, &send);
  MPI_Status st;
  MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
  CHECK(count_of(st, MPI_INT) == 30001);
  CHECK(st.MPI_SOURCE == me);
  int flag = 0;
  MPI_Iprobe(me, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag);
  CHECK(count_of(st, MPI_INT) == 30001);
  CHECK(st.MPI_TAG == tag);
  Bytes got = buffer(4 * 30001);
  MPI_Recv(got.data(), 30001, MPI_INT, me, tag, MPI_COMM_WORLD, &st);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  CHECK(holds(got, sent));

  // Behind a pending receive of the same channel, a probe sees the second message.
  const Bytes first = payload(40000, 31), second = payload(90000, 32);
  Bytes a = buffer(100000), b = buffer(100000);
  MPI_Request pending, sends[2];
  MPI_Irecv(a.data(), 100000, MPI_BYTE, me, tag + 1, MPI_COMM_WORLD, &pending);
  MPI_Isend(first.data(), 40000, MPI_BYTE, me, tag + 1, MPI_COMM_WORLD, &sends[0]);
  MPI_Isend(second.data(), 90000, MPI_BYTE, me, tag + 1, MPI_COMM_WORLD, &sends[1]);
  MPI_Probe(me, tag + 1, MPI_COMM_WORLD, &st);
  CHECK(count_of(st, MPI_BYTE) == 90000);
  MPI_Iprobe(me, tag + 1, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag);
  CHECK(count_of(st, MPI_BYTE) == 90000);
  MPI_Recv(b.data(), 100000, MPI_BYTE, me, tag + 1, MPI_COMM_WORLD, &st);
  CHECK(count_of(st, MPI_BYTE) == 90000);
  CHECK(holds(b, second));
  MPI_Wait(&pending, &st);
  CHECK(count_of(st, MPI_BYTE) == 40000);
  CHECK(holds(a, first));
  MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
  check_clean();
}

TEST_CASE("split: matched probes take the payload with them", "[split]") {
  const int me = world_rank(), tag = kTagBase + 80;
  const Bytes first = payload(25000, 40), second = payload(65000, 41), third = payload(33333, 42);
  Bytes a = buffer(70000), b = buffer(70000), c = buffer(70000);
  MPI_Request pending, sends[3];
  MPI_Irecv(a.data(), 70000, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &pending);
  MPI_Isend(first.data(), 25000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[0]);
  MPI_Isend(second.data(), 65000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[1]);
  MPI_Isend(third.data(), 33333, MPI_BYTE, me, tag, MPI_COMM_WORLD, &sends[2]);
  MPI_Message message;
  MPI_Status st;
  MPI_Mprobe(me, tag, MPI_COMM_WORLD, &message, &st);
  CHECK(count_of(st, MPI_BYTE) == 65000);
  CHECK(rt().split_messages.size() == 1);
  MPI_Mrecv(b.data(), 70000, MPI_BYTE, &message, &st);
  CHECK(message == MPI_MESSAGE_NULL);
  CHECK(count_of(st, MPI_BYTE) == 65000);
  CHECK(holds(b, second));
  int flag = 0;
  while (!flag) MPI_Improbe(me, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &message, &st);
  CHECK(count_of(st, MPI_BYTE) == 33333);
  CHECK(st.MPI_TAG == tag);
  MPI_Request matched;
  MPI_Imrecv(c.data(), 70000, MPI_BYTE, &message, &matched);
  MPI_Wait(&matched, &st);
  CHECK(count_of(st, MPI_BYTE) == 33333);
  CHECK(holds(c, third));
  MPI_Wait(&pending, &st);
  CHECK(count_of(st, MPI_BYTE) == 25000);
  CHECK(holds(a, first));
  MPI_Waitall(3, sends, MPI_STATUSES_IGNORE);
  check_clean();
}

TEST_CASE("split: neither a receive whose header came nor a split send is cancelled", "[split]") {
  const int me = world_rank(), tag = kTagBase + 90;
  const Bytes sent = payload(50000, 50);
  Bytes got = buffer(50000);
  MPI_Request recv, send;
  MPI_Irecv(got.data(), 50000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &recv);
  MPI_Isend(sent.data(), 50000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &send);  // header matched
  MPI_Cancel(&recv);
  MPI_Status st;
  MPI_Wait(&recv, &st);
  int cancelled = -1;
  MPI_Test_cancelled(&st, &cancelled);
  CHECK_FALSE(cancelled);
  CHECK(count_of(st, MPI_BYTE) == 50000);
  CHECK(holds(got, sent));
  MPI_Wait(&send, MPI_STATUS_IGNORE);

  // The header of a split send is out: cancelling it fails and the message is delivered.
  got = buffer(50000);
  MPI_Isend(sent.data(), 50000, MPI_BYTE, me, tag + 1, MPI_COMM_WORLD, &send);
  MPI_Cancel(&send);
  MPI_Recv(got.data(), 50000, MPI_BYTE, me, tag + 1, MPI_COMM_WORLD, &st);
  CHECK(holds(got, sent));
  MPI_Wait(&send, &st);
  MPI_Test_cancelled(&st, &cancelled);
  CHECK_FALSE(cancelled);
  check_clean();
}

// MPI_Request_free of a pending receive: the receive still takes its message (here one a blocked
// sender waits to hand over), and c3 forgets it once it is complete.
TEST_CASE("split: a freed pending large receive still takes its message", "[split]") {
  const int me = world_rank(), tag = kTagBase + 95;
  const Bytes sent = payload(200000, 55);
  Bytes got = buffer(200000);
  MPI_Request recv;
  MPI_Irecv(got.data(), 200000, MPI_BYTE, me, tag, MPI_COMM_WORLD, &recv);
  MPI_Request_free(&recv);
  CHECK(recv == MPI_REQUEST_NULL);
  {
    Watchdog watchdog("MPI_Ssend to itself, matched by a freed receive", 20);
    MPI_Ssend(sent.data(), 200000, MPI_BYTE, me, tag, MPI_COMM_WORLD);
  }
  // The freed receive completes inside c3 as the program goes on calling MPI.
  const auto start = std::chrono::steady_clock::now();
  while ((rt().awaiting.size() > 0 || payloads_pending() > 0) && seconds_since(start) < 5) {
    int flag = 0;
    MPI_Iprobe(me, tag + 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
  CHECK(holds(got, sent));
  check_clean();
}

TEST_CASE("split: sendrecv and sendrecv_replace and persistent requests with itself", "[split]") {
  const int me = world_rank(), tag = kTagBase + 100;
  const Bytes sent = payload(3u << 20, 60);
  Bytes got = buffer(3u << 20);
  MPI_Status st;
  MPI_Sendrecv(sent.data(), int(sent.size()), MPI_BYTE, me, tag, got.data(), int(got.size()),
               MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
  CHECK(count_of(st, MPI_BYTE) == int(sent.size()));
  CHECK(holds(got, sent));

  Bytes replaced = payload(1u << 20, 61);
  const Bytes original = replaced;
  MPI_Sendrecv_replace(replaced.data(), (1 << 20) / 4, MPI_INT, me, tag + 1, me, tag + 1,
                       MPI_COMM_WORLD, &st);
  CHECK(count_of(st, MPI_INT) == (1 << 20) / 4);
  CHECK(replaced == original);

  Bytes out(size_t(kLarge) * 4), in = buffer(size_t(kLarge) * 4 + 4096);
  MPI_Request rq[2];
  MPI_Recv_init(in.data(), int(in.size()), MPI_BYTE, me, tag + 2, MPI_COMM_WORLD, &rq[0]);
  MPI_Send_init(out.data(), int(out.size()), MPI_BYTE, me, tag + 2, MPI_COMM_WORLD, &rq[1]);
  for (unsigned round = 0; round < 3; ++round) {
    INFO("round " << round);
    const Bytes now = payload(out.size(), 62 + round);
    // In place: the persistent requests hold these buffers.
    std::copy(now.begin(), now.end(), out.begin());
    std::fill(in.begin(), in.end(), 0xee);
    MPI_Startall(2, rq);
    MPI_Status sts[2];
    MPI_Waitall(2, rq, sts);
    CHECK(count_of(sts[0], MPI_BYTE) == int(out.size()));
    CHECK(holds(in, now));
  }
  MPI_Request_free(&rq[0]);
  MPI_Request_free(&rq[1]);
  check_clean();
}

TEST_CASE("split: a large receive takes its header through a bounce of the inline limit",
          "[split]") {
  // On MPI_COMM_WORLD no message above the limit carries its header inline, so the header
  // lands in a bounce buffer of the limit's size instead of an MPICH struct type.
  const int me = world_rank(), tag = kTagBase + 120;
  const size_t capacity = size_t(kLarge) * 3 + 8;
  for (int bytes : {0, 100, int(piggyback::kBounceLimit), kLarge, kLarge * 3}) {
    INFO(bytes << " bytes");
    const Bytes sent = payload(size_t(bytes), unsigned(bytes) + 5);
    Bytes got = buffer(capacity);
    MPI_Request recv;
    MPI_Irecv(got.data(), int(capacity), MPI_BYTE, me, tag, MPI_COMM_WORLD, &recv);
    CHECK(request_of(recv).wire == MPI_DATATYPE_NULL);
    // Once this rank asked itself to split everything (test_payload_prepost.cpp), a receive
    // whose payload's receive is posted first takes only the split header.
    CHECK(request_of(recv).bounce.size() ==
          (request_of(recv).preposted
               ? size_t(piggyback::kHeaderBytes + piggyback::kHeaderOnlyPayload)
               : size_t(piggyback::kHeaderBytes + piggyback::kBounceLimit) + piggyback::kAlignSlack));
    MPI_Send(sent.data(), bytes, MPI_BYTE, me, tag, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Wait(&recv, &st);
    CHECK(count_of(st, MPI_BYTE) == bytes);
    CHECK(holds(got, sent));
  }
  // In the receive's own type: a small message into a large MPI_INT buffer counts in ints.
  std::vector<int> ints(size_t(kLarge), -1), small(10);
  for (int i = 0; i < 10; ++i) small[size_t(i)] = i * i;
  MPI_Request recv;
  MPI_Irecv(ints.data(), kLarge, MPI_INT, me, tag + 1, MPI_COMM_WORLD, &recv);
  MPI_Send(small.data(), 10, MPI_INT, me, tag + 1, MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Wait(&recv, &st);
  CHECK(count_of(st, MPI_INT) == 10);
  CHECK(std::equal(small.begin(), small.end(), ints.begin()));
  CHECK(ints[10] == -1);
  check_clean();
}

TEST_CASE("split: buffered sends above the limit travel split from c3's packed copy", "[split]") {
  const int me = world_rank(), tag = kTagBase + 130;
  // A strided type: every other int of `source`, above the limit in total.
  const int picked = kLarge / 4 + 50;
  MPI_Datatype every_other;
  MPI_Type_vector(picked, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> source(size_t(picked) * 2);
  for (size_t i = 0; i < source.size(); ++i) source[i] = int(i) * 3 + 1;
  Bytes contiguous = payload(size_t(kLarge) * 2, 70);
  const Bytes contiguous_sent = contiguous;
  // Sized for the program's messages only: c3's header never takes room in it.
  int attached = kLarge * 2 + picked * 4 + 2 * MPI_BSEND_OVERHEAD;
  std::vector<char> attach(static_cast<size_t>(attached));
  MPI_Buffer_attach(attach.data(), attached);
  MPI_Request ib;
  // Neither receive is posted yet: buffered sends return regardless.
  MPI_Bsend(contiguous.data(), int(contiguous.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD);
  MPI_Ibsend(source.data(), 1, every_other, me, tag + 1, MPI_COMM_WORLD, &ib);
  MPI_Wait(&ib, MPI_STATUS_IGNORE);
  std::fill(contiguous.begin(), contiguous.end(), 0);  // the copy left already
  std::fill(source.begin(), source.end(), 0);
  Bytes got = buffer(contiguous.size() + 16);
  std::vector<int> ints(size_t(picked) + 5, -1);
  MPI_Status st[2];
  MPI_Recv(got.data(), int(got.size()), MPI_BYTE, me, tag, MPI_COMM_WORLD, &st[0]);
  MPI_Recv(ints.data(), picked + 5, MPI_INT, me, tag + 1, MPI_COMM_WORLD, &st[1]);
  CHECK(count_of(st[0], MPI_BYTE) == int(contiguous_sent.size()));
  CHECK(holds(got, contiguous_sent));
  CHECK(count_of(st[1], MPI_INT) == picked);
  bool strided = true;
  for (int i = 0; i < picked; ++i) strided = strided && ints[size_t(i)] == i * 2 * 3 + 1;
  CHECK(strided);
  CHECK(ints[size_t(picked)] == -1);
  void *detached = nullptr;
  int detached_size = 0;
  MPI_Buffer_detach(&detached, &detached_size);
  CHECK(detached == attach.data());
  CHECK(detached_size == attached);
  MPI_Type_free(&every_other);
  check_clean();
}

// --- between two processes

TEST_CASE("two ranks: a wildcard and a specific receive completed together in reverse order",
          "[two_ranks][split]") {
  if (!have_two_ranks()) return;
  const int me = world_rank();
  if (me > 1) return;
  const Completion how = GENERATE(Completion::Waitall, Completion::Waitsome, Completion::Testall,
                                  Completion::Testsome, Completion::Waitany, Completion::Wait);
  INFO("completed by " << name_of(how));
  const int tag = kTagBase + 200 + int(how);
  const Bytes first = payload(21000, 70), second = payload(1u << 20, 71), third = payload(300, 72);
  if (me == 0) {
    MPI_Request sends[3];
    MPI_Isend(first.data(), int(first.size()), MPI_BYTE, 1, tag, MPI_COMM_WORLD, &sends[0]);
    MPI_Isend(second.data(), int(second.size()), MPI_BYTE, 1, tag, MPI_COMM_WORLD, &sends[1]);
    MPI_Isend(third.data(), int(third.size()), MPI_BYTE, 1, tag, MPI_COMM_WORLD, &sends[2]);
    PMPI_Barrier(MPI_COMM_WORLD);  // every header is on its way
    MPI_Waitall(3, sends, MPI_STATUSES_IGNORE);
  } else {
    const size_t capacity = (1u << 20) + 100;
    Bytes a = buffer(capacity), b = buffer(capacity), c = buffer(capacity);
    MPI_Request wild, specific, any_tag;
    MPI_Irecv(a.data(), int(capacity), MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &wild);
    MPI_Irecv(b.data(), int(capacity), MPI_BYTE, 0, tag, MPI_COMM_WORLD, &specific);
    MPI_Irecv(c.data(), int(capacity), MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &any_tag);
    // Past MPICH's own barrier, the headers have been matched inside MPICH: c3 finds them all
    // complete in one call.
    PMPI_Barrier(MPI_COMM_WORLD);
    std::vector<MPI_Request> reqs = {any_tag, specific, wild};
    std::vector<MPI_Status> sts;
    complete_all(how, reqs, sts);
    CHECK(count_of(sts[2], MPI_BYTE) == int(first.size()));
    CHECK(count_of(sts[1], MPI_BYTE) == int(second.size()));
    CHECK(count_of(sts[0], MPI_BYTE) == int(third.size()));
    CHECK(holds(a, first));
    CHECK(holds(b, second));
    CHECK(holds(c, third));
    for (const MPI_Status &st : sts) {
      CHECK(st.MPI_SOURCE == 0);
      CHECK(st.MPI_TAG == tag);
    }
  }
  check_clean();
}

// MPI's progress rule: a process that keeps calling MPI_Test (or any of these) lets a matched
// transfer complete. Rank 1 has pre-posted the large receive; rank 0 sends the small message it
// polls for only after its blocking large send returned. If c3 leaves the large receive's header
// unprocessed while the program polls, rank 0 never gets there: after a few seconds the receiver
// gives up polling, waits for the large receive (which unblocks rank 0) and the test fails.
// MPI_Ssend needs the payload's receive posted; MPICH's shared memory completes a large MPI_Send
// once the receiver's progress engine has buffered it, but other transports need the receive.
TEST_CASE("two ranks: polling for another message lets a blocked large send complete",
          "[two_ranks][split]") {
  if (!have_two_ranks()) return;
  const int me = world_rank();
  if (me > 1) return;
  const Polling how = GENERATE(Polling::Test, Polling::Testany, Polling::Testall,
                               Polling::Testsome, Polling::GetStatus, Polling::Iprobe,
                               Polling::Improbe);
  const bool synchronous = GENERATE(true, false);
  INFO("rank 1 polls with " << name_of(how) << (synchronous ? ", rank 0 in MPI_Ssend" : ""));
  const int tag = kTagBase + 300 + 2 * int(how);
  const Bytes large = payload(3u << 20, 80), small = payload(64, 81);
  if (me == 0) {
    if (synchronous)
      MPI_Ssend(large.data(), int(large.size()), MPI_BYTE, 1, tag, MPI_COMM_WORLD);
    else
      MPI_Send(large.data(), int(large.size()), MPI_BYTE, 1, tag, MPI_COMM_WORLD);
    MPI_Send(small.data(), int(small.size()), MPI_BYTE, 1, tag + 1, MPI_COMM_WORLD);
  } else {
    Bytes big = buffer(large.size()), little = buffer(small.size());
    MPI_Request pre, rq = MPI_REQUEST_NULL;
    MPI_Irecv(big.data(), int(big.size()), MPI_BYTE, 0, tag, MPI_COMM_WORLD, &pre);
    const bool probing = how == Polling::Iprobe || how == Polling::Improbe;
    if (!probing)
      MPI_Irecv(little.data(), int(little.size()), MPI_BYTE, 0, tag + 1, MPI_COMM_WORLD, &rq);
    MPI_Status st;
    MPI_Message message = MPI_MESSAGE_NULL;
    int flag = 0, index = -1, outcount = 0;
    const auto start = std::chrono::steady_clock::now();
    while (!flag && seconds_since(start) < 4) {
      switch (how) {
        case Polling::Test: MPI_Test(&rq, &flag, &st); break;
        case Polling::Testany: MPI_Testany(1, &rq, &index, &flag, &st); break;
        case Polling::Testall: MPI_Testall(1, &rq, &flag, &st); break;
        case Polling::Testsome:
          MPI_Testsome(1, &rq, &outcount, &index, &st);
          flag = outcount == 1;
          break;
        case Polling::GetStatus: MPI_Request_get_status(rq, &flag, &st); break;
        case Polling::Iprobe: MPI_Iprobe(0, tag + 1, MPI_COMM_WORLD, &flag, &st); break;
        case Polling::Improbe: MPI_Improbe(0, tag + 1, MPI_COMM_WORLD, &flag, &message, &st); break;
      }
    }
    CHECK(flag);  // the small message came while polling
    MPI_Status big_st;
    MPI_Wait(&pre, &big_st);
    if (how == Polling::Iprobe)
      MPI_Recv(little.data(), int(little.size()), MPI_BYTE, 0, tag + 1, MPI_COMM_WORLD, &st);
    else if (how == Polling::Improbe && flag)
      MPI_Mrecv(little.data(), int(little.size()), MPI_BYTE, &message, &st);
    else if (how == Polling::Improbe)
      MPI_Recv(little.data(), int(little.size()), MPI_BYTE, 0, tag + 1, MPI_COMM_WORLD, &st);
    else
      MPI_Wait(&rq, &st);  // completed already, or completes now
    CHECK(count_of(big_st, MPI_BYTE) == int(large.size()));
    CHECK(holds(big, large));
    CHECK(holds(little, small));
  }
  check_clean();
}

// Both ranks poll their own large nonblocking send with MPI_Test: each send completes only when
// the other side has posted the payload's receive.
TEST_CASE("two ranks: both sides poll their large sends with MPI_Test", "[two_ranks][split]") {
  if (!have_two_ranks()) return;
  const int me = world_rank();
  if (me > 1) return;
  const bool synchronous = GENERATE(true, false);
  INFO("both send with " << (synchronous ? "MPI_Issend" : "MPI_Isend"));
  const int other = 1 - me, tag = kTagBase + 400;
  const Bytes mine = payload(3u << 20, 90 + unsigned(me)), theirs = payload(3u << 20, 90 + unsigned(other));
  Bytes got = buffer(theirs.size());
  MPI_Request recv, send;
  MPI_Irecv(got.data(), int(got.size()), MPI_BYTE, other, tag, MPI_COMM_WORLD, &recv);
  if (synchronous)
    MPI_Issend(mine.data(), int(mine.size()), MPI_BYTE, other, tag, MPI_COMM_WORLD, &send);
  else
    MPI_Isend(mine.data(), int(mine.size()), MPI_BYTE, other, tag, MPI_COMM_WORLD, &send);
  int flag = 0;
  const auto start = std::chrono::steady_clock::now();
  while (!flag && seconds_since(start) < 4) MPI_Test(&send, &flag, MPI_STATUS_IGNORE);
  CHECK(flag);
  MPI_Status st;
  MPI_Wait(&recv, &st);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  CHECK(count_of(st, MPI_BYTE) == int(theirs.size()));
  CHECK(holds(got, theirs));
  check_clean();
}

// The blocking patterns c3 must poll in: each rank pre-posts its receive and blocks in a send,
// or blocks in a receive, probe or synchronous send the peer completes only after its own
// blocking large send returned. The large sends are synchronous: they need the payload's receive
// posted on any transport. A bug here hangs (the test's timeout reports it).
TEST_CASE("two ranks: blocked in a send or receive or probe or synchronous send while a "
          "large message needs its payload posted",
          "[two_ranks][split]") {
  const int other = pair_peer(), tag = kTagBase + 500;
  if (other < 0) return;
  const int me = 1 - other;
  const Bytes mine = payload(3u << 20, 100 + unsigned(me)),
              theirs = payload(3u << 20, 100 + unsigned(other));
  Bytes got = buffer(theirs.size());
  MPI_Request recv;
  MPI_Status st;
  // Exchange: both pre-post, both send blocking.
  {
    Watchdog watchdog("exchange: MPI_Irecv, then MPI_Ssend of a large message, both sides", 30);
    MPI_Irecv(got.data(), int(got.size()), MPI_BYTE, other, tag, MPI_COMM_WORLD, &recv);
    MPI_Ssend(mine.data(), int(mine.size()), MPI_BYTE, other, tag, MPI_COMM_WORLD);
    MPI_Wait(&recv, &st);
  }
  CHECK(holds(got, theirs));

  const Bytes note = payload(200, 110);
  for (int blocked_in = 0; blocked_in < 3; ++blocked_in) {
    const char *const calls[3] = {"MPI_Recv", "MPI_Probe", "MPI_Ssend"};
    INFO("rank 1 blocks in " << calls[blocked_in]);
    const int t = tag + 1 + 2 * blocked_in;
    got = buffer(theirs.size());
    Bytes little = buffer(note.size());
    Watchdog watchdog(std::string("rank 1 pre-posted a large receive and blocks in ") +
                          calls[blocked_in] + " while rank 0 is in MPI_Ssend",
                      30);
    if (me == 0) {
      MPI_Ssend(mine.data(), int(mine.size()), MPI_BYTE, 1, t, MPI_COMM_WORLD);
      if (blocked_in == 2)
        MPI_Recv(little.data(), int(little.size()), MPI_BYTE, 1, t + 1, MPI_COMM_WORLD, &st);
      else
        MPI_Send(note.data(), int(note.size()), MPI_BYTE, 1, t + 1, MPI_COMM_WORLD);
    } else {
      MPI_Irecv(got.data(), int(got.size()), MPI_BYTE, 0, t, MPI_COMM_WORLD, &recv);
      if (blocked_in == 0) {
        MPI_Recv(little.data(), int(little.size()), MPI_BYTE, 0, t + 1, MPI_COMM_WORLD, &st);
      } else if (blocked_in == 1) {
        MPI_Probe(0, t + 1, MPI_COMM_WORLD, &st);
        CHECK(count_of(st, MPI_BYTE) == int(note.size()));
        MPI_Recv(little.data(), int(little.size()), MPI_BYTE, 0, t + 1, MPI_COMM_WORLD, &st);
      } else {
        MPI_Ssend(note.data(), int(note.size()), MPI_BYTE, 0, t + 1, MPI_COMM_WORLD);
      }
      MPI_Wait(&recv, &st);
      CHECK(count_of(st, MPI_BYTE) == int(mine.size()));
      CHECK(holds(got, payload(3u << 20, 100)));
    }
    if ((me == 0) == (blocked_in == 2)) CHECK(holds(little, note));
  }
  check_clean();
}
