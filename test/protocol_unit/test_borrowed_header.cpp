// Blocking messages of 1-8 KiB whose header travels in the 4 bytes before the program's buffer
// (messages/borrowed_header.hpp): which memory may lend them, and, between two ranks, that the
// payload arrives whole and the lent bytes are the program's again after every call, also when a
// receive in flight writes right next to the buffer (the message then takes the bounce) and when
// small-lane messages are in flight (they move only their own bounces: the bytes are lent).
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <ucontext.h>

#include "memory/heap_arena.hpp"
#include "messages/borrowed_header.hpp"
#include "messages/requests.hpp"
#include "state/protocol_state.hpp"
#include "unit_support.hpp"

using namespace c3::mpi;
using c3::mpi::test::pair_peer;
using c3::mpi::test::world_rank;

namespace {

constexpr int kTag = 900;
// The 8 bytes before every buffer, as the program left them (the 4 lent ones and 4 more).
constexpr uint64_t kLent = 0x5eed1e55a5c3f00dull;

// A page-aligned block of the c3 heap, freed with the test.
struct ArenaPages {
  explicit ArenaPages(size_t bytes) : base(static_cast<char *>(c3::heap::memalign(4096, bytes))) {}
  ~ArenaPages() { c3::heap::free(base); }
  ArenaPages(const ArenaPages &) = delete;
  ArenaPages &operator=(const ArenaPages &) = delete;
  char *base;
};

uint64_t lent_bytes(const char *buf) {
  uint64_t v;
  std::memcpy(&v, buf - 8, 8);
  return v;
}

void fill_ints(char *buf, int count, int first) {
  for (int k = 0; k < count; ++k) {
    const int v = first + k;
    std::memcpy(buf + 4 * size_t(k), &v, 4);
  }
}

// The buffer holds first, first + 1, ... for `count` ints.
bool holds_ints(const char *buf, int count, int first) {
  for (int k = 0; k < count; ++k) {
    int v;
    std::memcpy(&v, buf + 4 * size_t(k), 4);
    if (v != first + k) return false;
  }
  return true;
}

// Rank 1 tells rank 0 its side receive of round `repeat` is posted; rank 0 waits for that.
void tell_go(int repeat) {
  REQUIRE(MPI_Send(&repeat, 1, MPI_INT, 0, kTag + 2, MPI_COMM_WORLD) == MPI_SUCCESS);
}
void await_go(int repeat) {
  int go = -1;
  REQUIRE(MPI_Recv(&go, 1, MPI_INT, 1, kTag + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
  CHECK(go == repeat);
}

}  // namespace

TEST_CASE("borrowed header: the memory that may lend the bytes before a buffer", "[borrowed]") {
  ArenaPages arena(4 * 4096);
  CHECK(borrowed::may_borrow(arena.base + 4096, borrowed::kStackUnknown));
  CHECK(borrowed::may_borrow(arena.base + 4100, borrowed::kStackUnknown));
  // Under the size the bounce keeps every message.
  CHECK_FALSE(borrowed::borrow(arena.base + 4096, borrowed::kFrom - 1, borrowed::kStackUnknown));
  CHECK(borrowed::borrow(arena.base + 4096, borrowed::kFrom, borrowed::kStackUnknown));
  // The C library's heap (block headers MPICH's own allocations use) and this test's stack,
  // which is not the application stack.
  std::vector<char> libc_heap(8192);
  CHECK_FALSE(borrowed::may_borrow(libc_heap.data() + 4096, borrowed::kStackUnknown));
  char on_stack[64];
  CHECK_FALSE(borrowed::may_borrow(on_stack + 8, reinterpret_cast<uintptr_t>(on_stack)));
  // A request in the table, even an inactive persistent one, may move bytes next to any buffer.
  MPI_Request persistent;
  REQUIRE(MPI_Recv_init(arena.base, 1, MPI_INT, 0, kTag, MPI_COMM_WORLD, &persistent) ==
          MPI_SUCCESS);
  CHECK_FALSE(borrowed::may_borrow(arena.base + 4096, borrowed::kStackUnknown));
  REQUIRE(MPI_Request_free(&persistent) == MPI_SUCCESS);
  CHECK(borrowed::may_borrow(arena.base + 4096, borrowed::kStackUnknown));
  // Small-lane requests in flight move only their own bounces: lending goes on. Not once one
  // leaves the lane (a split message's payload receive writes the program's buffer), nor beside
  // any other request; and again when all are done, their slots back on the lane's list.
  int out = 5, in = 0, other = 0;
  MPI_Request lane_send, lane_recv, general;
  const size_t lane_before = g_lane_in_use;
  REQUIRE(MPI_Isend(&out, 1, MPI_INT, world_rank(), kTag, MPI_COMM_WORLD, &lane_send) ==
          MPI_SUCCESS);
  REQUIRE(MPI_Irecv(&in, 1, MPI_INT, world_rank(), kTag + 1, MPI_COMM_WORLD, &lane_recv) ==
          MPI_SUCCESS);
  REQUIRE(request_of(lane_send).small);
  REQUIRE(request_of(lane_recv).small);
  CHECK(g_lane_in_use == lane_before + 2);
  CHECK(borrowed::may_borrow(arena.base + 4096, borrowed::kStackUnknown));
  leave_lane(request_of(lane_recv));
  CHECK(g_lane_in_use == lane_before + 1);
  CHECK_FALSE(borrowed::may_borrow(arena.base + 4096, borrowed::kStackUnknown));
  leave_lane(request_of(lane_recv));  // once only
  CHECK(g_lane_in_use == lane_before + 1);
  MPI_Datatype pair;
  REQUIRE(MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS);
  REQUIRE(MPI_Type_commit(&pair) == MPI_SUCCESS);
  int two[2] = {0, 0};
  REQUIRE(MPI_Irecv(two, 1, pair, world_rank(), kTag + 2, MPI_COMM_WORLD, &general) ==
          MPI_SUCCESS);  // a derived type: not the lane's
  CHECK_FALSE(request_of(general).small);
  CHECK(g_lane_in_use == lane_before + 1);
  CHECK_FALSE(borrowed::may_borrow(arena.base + 4096, borrowed::kStackUnknown));
  REQUIRE(MPI_Cancel(&general) == MPI_SUCCESS);
  REQUIRE(MPI_Wait(&general, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  REQUIRE(MPI_Type_free(&pair) == MPI_SUCCESS);
  // A cancelled lane request leaves the lane.
  MPI_Request cancelled;
  REQUIRE(MPI_Irecv(&other, 1, MPI_INT, world_rank(), kTag + 3, MPI_COMM_WORLD, &cancelled) ==
          MPI_SUCCESS);
  CHECK(g_lane_in_use == lane_before + 2);
  REQUIRE(MPI_Cancel(&cancelled) == MPI_SUCCESS);
  CHECK(g_lane_in_use == lane_before + 1);
  REQUIRE(MPI_Wait(&cancelled, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(g_lane_in_use == lane_before + 1);
  REQUIRE(MPI_Recv(&in, 1, MPI_INT, world_rank(), kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
  REQUIRE(MPI_Wait(&lane_send, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(in == 5);
  REQUIRE(MPI_Send(&out, 1, MPI_INT, world_rank(), kTag + 1, MPI_COMM_WORLD) == MPI_SUCCESS);
  REQUIRE(MPI_Wait(&lane_recv, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(g_lane_in_use == lane_before);
  CHECK(borrowed::may_borrow(arena.base + 4096, borrowed::kStackUnknown));
  // After a call c3 passes to MPICH untracked (a window's peers may write at any time).
  rt().tainted_by = "MPI_Win_create";
  CHECK_FALSE(borrowed::may_borrow(arena.base + 4096, borrowed::kStackUnknown));
  rt().tainted_by = nullptr;
}

namespace {

// What may_borrow says, from a function running on a stack in the c3 heap, of a buffer in its
// caller's frame (the frames between may_borrow and the program's are c3's there).
struct OnHeapStack {
  bool unknown_frames = true, above_frames = false, other_block = false;
  char *other = nullptr;
};
OnHeapStack g_on_heap_stack;
ucontext_t g_main_context, g_heap_context;

[[gnu::noinline]] void ask_from_heap_stack(char *local) {
  g_on_heap_stack.unknown_frames = borrowed::may_borrow(local + 8, borrowed::kStackUnknown);
  g_on_heap_stack.above_frames = borrowed::may_borrow(local + 8, reinterpret_cast<uintptr_t>(local));
  g_on_heap_stack.other_block = borrowed::may_borrow(g_on_heap_stack.other, borrowed::kStackUnknown);
}

void on_heap_stack() {
  char local[64];
  ask_from_heap_stack(local);
  asm volatile("" : : "r"(local) : "memory");
}

}  // namespace

TEST_CASE("borrowed header: a program on a stack of its own in the c3 heap", "[borrowed]") {
  // The stack lies above the other block, so that block is below every frame.
  ArenaPages other(4096), stack(64 * 1024);
  REQUIRE(other.base < stack.base);
  g_on_heap_stack = OnHeapStack{};
  g_on_heap_stack.other = other.base + 64;
  REQUIRE(getcontext(&g_heap_context) == 0);
  g_heap_context.uc_stack.ss_sp = stack.base;
  g_heap_context.uc_stack.ss_size = 64 * 1024;
  g_heap_context.uc_link = &g_main_context;
  makecontext(&g_heap_context, on_heap_stack, 0);
  REQUIRE(swapcontext(&g_main_context, &g_heap_context) == 0);
  CHECK_FALSE(g_on_heap_stack.unknown_frames);  // may be among c3's frames
  CHECK(g_on_heap_stack.above_frames);          // above where the program's frames begin
  CHECK(g_on_heap_stack.other_block);           // below every frame
}

TEST_CASE("two ranks: blocking messages of 1-8 KiB with the header in the bytes before the buffer",
          "[two_ranks][borrowed]") {
  const int peer = pair_peer();
  if (peer < 0) return;
  const int me = 1 - peer;
  ArenaPages out(4 * 4096), in(4 * 4096);  // room for 8 KiB + 4 at offset 4157

  SECTION("every size from the threshold, buffers at several offsets, both directions") {
    int round = 0;
    for (int bytes : {1024, 1028, 2048, 4096, 6000, 8192})
      for (size_t offset : {size_t(4096), size_t(4100), size_t(4096 + 61)}) {
        INFO(bytes << " bytes at offset " << offset);
        const int count = bytes / 4;
        char *send = out.base + offset, *recv = in.base + offset;
        std::memcpy(send - 8, &kLent, 8);
        std::memcpy(recv - 8, &kLent, 8);
        std::memset(recv, 0x77, size_t(bytes) + 4);
        for (int direction = 0; direction < 2; ++direction, ++round) {
          const int first = round * 10000;
          if (me == direction) {
            fill_ints(send, count, first);
            const uint64_t lent = borrowed::g_lent;
            REQUIRE(MPI_Send(send, count, MPI_INT, peer, kTag, MPI_COMM_WORLD) == MPI_SUCCESS);
            CHECK(borrowed::g_lent == lent + 1);  // the header went in place
            CHECK(lent_bytes(send) == kLent);
            CHECK(holds_ints(send, count, first));  // a send leaves its buffer alone
          } else {
            MPI_Status s;
            s.MPI_ERROR = -5;
            const uint64_t lent = borrowed::g_lent;
            // One int more where the fast path takes it (it takes up to 8 KiB).
            const int capacity = bytes + 4 <= 8192 ? count + 1 : count;
            REQUIRE(MPI_Recv(recv, capacity, MPI_INT, peer, kTag, MPI_COMM_WORLD, &s) ==
                    MPI_SUCCESS);
            CHECK(borrowed::g_lent == lent + 1);
            CHECK(lent_bytes(recv) == kLent);
            CHECK(holds_ints(recv, count, first));
            int got = -1;
            MPI_Get_count(&s, MPI_INT, &got);
            CHECK(got == count);
            CHECK(s.MPI_SOURCE == peer);
            CHECK(s.MPI_TAG == kTag);
            CHECK(s.MPI_ERROR == -5);  // MPI_Recv leaves it alone
            uint32_t past;
            std::memcpy(&past, recv + bytes, 4);
            CHECK(past == 0x77777777u);  // nothing past the message
          }
        }
      }
  }

  SECTION("a large message for a buffer of 8 KiB: its split header lands in the lent bytes") {
    // The payload does not fit: under MPI_ERRORS_RETURN the receive reports the truncation as
    // MPICH's own does, through a bounce (the C library's heap) and in place (the c3 heap).
    constexpr int kCount = 2048, kSent = 4096;  // 8 KiB posted, 16 KiB sent (split)
    std::vector<char> libc_heap(8192 + 64);
    for (char *buffer : {libc_heap.data() + 8, in.base + 4096}) {
      const bool in_place = buffer != libc_heap.data() + 8;
      INFO((in_place ? "in place" : "through a bounce"));
      std::memcpy(buffer - 8, &kLent, 8);
      if (me == 0) {
        std::vector<int> big(kSent, 7);
        REQUIRE(MPI_Send(big.data(), kSent, MPI_INT, 1, kTag + 3, MPI_COMM_WORLD) == MPI_SUCCESS);
      } else {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        const uint64_t lent = borrowed::g_lent;
        const int rc = MPI_Recv(buffer, kCount, MPI_INT, 0, kTag + 3, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        int error_class = -1;
        MPI_Error_class(rc, &error_class);
        CHECK(error_class == MPI_ERR_TRUNCATE);
        CHECK(borrowed::g_lent == lent + (in_place ? 1 : 0));
        CHECK(lent_bytes(buffer) == kLent);
      }
    }
  }

  SECTION("the receive's own status right before its buffer") {
    // The status's last field, MPI_ERROR, is the 4 bytes before the buffer. MPICH's MPI_Recv
    // never writes it on success, so the header lands there and the program's value comes back.
    struct Record {
      MPI_Status status;
      int data[1024];
    };
    static_assert(offsetof(Record, data) == sizeof(MPI_Status));
    static_assert(offsetof(MPI_Status, MPI_ERROR) + sizeof(int) == sizeof(MPI_Status));
    auto *record = reinterpret_cast<Record *>(in.base + 4096);
    if (me == 0) {
      fill_ints(out.base + 4096, 1024, 31);
      REQUIRE(MPI_Send(out.base + 4096, 1024, MPI_INT, 1, kTag + 4, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
      record->status.MPI_ERROR = 12345;
      const uint64_t lent = borrowed::g_lent;
      REQUIRE(MPI_Recv(record->data, 1024, MPI_INT, 0, kTag + 4, MPI_COMM_WORLD,
                       &record->status) == MPI_SUCCESS);
      CHECK(borrowed::g_lent == lent + 1);
      CHECK(holds_ints(reinterpret_cast<const char *>(record->data), 1024, 31));
      CHECK(record->status.MPI_ERROR == 12345);
      CHECK(record->status.MPI_SOURCE == 0);
      CHECK(record->status.MPI_TAG == kTag + 4);
    }
  }

  SECTION("small-lane messages in flight beside blocking ones that lend bytes") {
    // Rank 1's small MPI_Irecv targets the int right before its blocking receive's buffer; rank
    // 0 sends that small message with MPI_Isend, then the blocking one, and only then completes
    // the small send. The lane's messages travel in their own bounces, so both blocking calls
    // lend bytes, and the small payload reaches the program's int when its receive completes.
    constexpr int kCount = 1024;
    char *const small_int = in.base + 4096;
    char *const buffer = small_int + 4;
    for (int repeat = 0; repeat < 20; ++repeat) {
      INFO("repeat " << repeat);
      const uint64_t lent = borrowed::g_lent;
      if (me == 1) {
        std::memset(small_int, 0, 4 + 4 * size_t(kCount));
        MPI_Request side;
        REQUIRE(MPI_Irecv(small_int, 1, MPI_INT, 0, kTag + 1, MPI_COMM_WORLD, &side) ==
                MPI_SUCCESS);
        REQUIRE(request_of(side).small);
        tell_go(repeat);
        REQUIRE(MPI_Recv(buffer, kCount, MPI_INT, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                MPI_SUCCESS);
        CHECK(borrowed::g_lent == lent + 1);
        REQUIRE(MPI_Wait(&side, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        int got;
        std::memcpy(&got, small_int, 4);
        CHECK(got == 300 + repeat);
        CHECK(holds_ints(buffer, kCount, repeat));
      } else {
        await_go(repeat);
        const int value = 300 + repeat;
        MPI_Request side;
        REQUIRE(MPI_Isend(&value, 1, MPI_INT, 1, kTag + 1, MPI_COMM_WORLD, &side) == MPI_SUCCESS);
        REQUIRE(request_of(side).small);
        fill_ints(out.base + 4096, kCount, repeat);
        REQUIRE(MPI_Send(out.base + 4096, kCount, MPI_INT, 1, kTag, MPI_COMM_WORLD) ==
                MPI_SUCCESS);
        CHECK(borrowed::g_lent == lent + 1);
        REQUIRE(MPI_Wait(&side, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      }
    }
  }

  SECTION("a receive in flight that writes the 4 bytes before a blocking receive's buffer") {
    // Rank 1 posts a receive of a vector type (which MPICH writes straight into the program's
    // memory) whose last int is right before the buffer of its blocking receive, tells rank 0,
    // and blocks in MPI_Recv; rank 0 sends the vector's message, then the blocking one. Were the
    // bytes lent while the vector's message lands, putting them back would undo it.
    MPI_Datatype every_other;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    constexpr int kCount = 1024;
    char *const region = in.base + 4096;  // ints 0 and 2 for the vector, the buffer from int 3
    char *const buffer = region + 12;
    for (int repeat = 0; repeat < 20; ++repeat) {
      INFO("repeat " << repeat);
      if (me == 1) {
        std::memset(region, 0, 12 + 4 * size_t(kCount));
        MPI_Request side;
        REQUIRE(MPI_Irecv(region, 1, every_other, 0, kTag + 1, MPI_COMM_WORLD, &side) ==
                MPI_SUCCESS);
        tell_go(repeat);
        REQUIRE(MPI_Recv(buffer, kCount, MPI_INT, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                MPI_SUCCESS);
        REQUIRE(MPI_Wait(&side, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        int pair[3];
        std::memcpy(pair, region, sizeof pair);
        CHECK(pair[0] == 100 + repeat);
        CHECK(pair[1] == 0);
        CHECK(pair[2] == 200 + repeat);  // the lent int: the vector's, not what it held before
        CHECK(holds_ints(buffer, kCount, repeat));
      } else {
        await_go(repeat);
        const int pair[2] = {100 + repeat, 200 + repeat};
        REQUIRE(MPI_Send(pair, 2, MPI_INT, 1, kTag + 1, MPI_COMM_WORLD) == MPI_SUCCESS);
        fill_ints(out.base + 4096, kCount, repeat);
        REQUIRE(MPI_Send(out.base + 4096, kCount, MPI_INT, 1, kTag, MPI_COMM_WORLD) ==
                MPI_SUCCESS);
      }
    }
    MPI_Type_free(&every_other);
  }
}
