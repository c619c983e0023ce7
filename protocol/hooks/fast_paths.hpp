// The common cases of latency- and message-rate-bound code, decided in the wrapper before the
// layer's Entry (table attribute `fast`) while nothing needs the protocol's attention (Run mode,
// no checkpoint in progress, nothing to suppress), on MPI_COMM_WORLD, for built-in types:
//   * MPI_Send and MPI_Recv of up to 8 KiB: the message with its header goes through a bounce
//     buffer on the stack, or from 1 KiB on with its header in the 4 bytes before the program's
//     buffer where those may carry it (borrowed_header.hpp); no request-table entry, the
//     receive lands in the caller's status (the hooks take the same way, fast::send /
//     fast::recv, on other intracommunicators); MPI_Recv on MPI_COMM_WORLD also above 8 KiB,
//     where a split message's payload is received straight into the program's buffer;
//   * MPI_Isend and MPI_Irecv of up to 8 KiB, and MPI_Wait, MPI_Test, MPI_Waitall, MPI_Waitsome,
//     MPI_Testany, MPI_Testsome or MPI_Testall over such requests only: the message travels in
//     the request's own bounce buffer (64 bytes kept by the slot, larger ones from spares per
//     size class); the request takes a table slot from those this lane freed before, of which
//     only the fields the lane writes differ from a reset entry, and gives it back the same way
//     (requests.hpp: take_small_slot);
//   * MPI_Isend of a message that travels split, MPI_Irecv of a large message whose payload's
//     receive may be posted at once, and MPI_Waitall over those (with the small ones): the
//     split-message lane (messages/split_lane.hpp), in the same slots.
// Anything else, and every request of the lane once another call completes or cancels it, takes
// the hooks' way. Each fast_X returns whether it handled the call, its result in `rc`;
// everything unusual leaves these paths through a call, so they keep their values in registers.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "layer/layer.hpp"
#include "messages/borrowed_header.hpp"
#include "messages/payload_prepost.hpp"
#include "messages/payload_window.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/small_completion.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {

namespace fast {

constexpr int kMaxRequests = 64;  // MPI_Waitall's arrays on the stack

// Outermost call, Run mode, no checkpoint in progress, no orphaned requests, no restart's
// suppressions: the hooks would do nothing but the message itself.
[[gnu::always_inline]] inline bool quiet() {
  return g_depth == 0 && !g_attention && state().was_early.empty();
}


// The entry as a nonblocking call of this lane leaves it; returns where its message starts in
// the entry's bounce for a payload of up to `bytes`.
[[gnu::always_inline]] inline char *describe(Request &r, const void *buf, int count,
                                             MPI_Datatype type, int peer, int tag, int bytes) {
  describe_message(r, buf, count, type, type, peer, tag, MPI_COMM_WORLD, MPI_COMM_WORLD);
  r.send_mode = SendMode::Standard;  // a slot the hooks' small path gave back may hold another
  mark_lane(r);
  return piggyback::place_wire(r, buf, bytes);
}

// The communicator of a blocking call on the short path: MPICH's handle, and its members'
// ranks in MPI_COMM_WORLD (null for MPI_COMM_WORLD itself, whose ranks need no translation).
struct ShortPath {
  MPI_Comm app, real;
  const int *world;
  int size;
};
inline constexpr ShortPath kWorldPath{MPI_COMM_WORLD, MPI_COMM_WORLD, nullptr, 0};
[[gnu::always_inline]] inline int world_of(const ShortPath &p, int rank) {
  return p.world ? p.world[rank] : rank;
}

// What recv leaves to a call: a message without the plain inline header (a split header, or
// none at all) in `wire`, already received with status `s`. A split header's payload goes
// straight into `buf` while no other receive awaits a header and no payload was drained.
[[gnu::noinline]] int recv_unusual(void *buf, int capacity, int source, int tag, MPI_Status &s,
                                   const char *wire, uint64_t posting, const ShortPath &p);
// A received message that is not intra-epoch in Run mode: the protocol may log or count it.
[[gnu::noinline]] void recv_noted(void *buf, int64_t bytes, int source, int tag,
                                  const MPI_Status &s, int32_t header, uint64_t posting,
                                  MPI_Comm comm);

// A blocking send of `bytes` (at most 8 KiB) of a built-in type, header inline: in the bytes
// before the program's buffer where they may carry it (borrowed_header.hpp), else through a
// bounce. `program_sp`: see borrowed::may_borrow.
[[gnu::always_inline]] inline int send(const void *buf, int bytes, int dest, int tag,
                                       SendMode mode, const ShortPath &p, uintptr_t program_sp) {
  const int32_t header = outgoing_header();
  ++state().sent[size_t(world_of(p, dest))];
  const int n = piggyback::kHeaderBytes + bytes;
  const bool direct = mode == SendMode::Standard && !split::must_poll();
  if (direct && borrowed::borrow(buf, bytes, program_sp)) {
    // The program's bytes are put back whatever MPICH says; they are writable (may_borrow).
    char *const wire = const_cast<char *>(static_cast<const char *>(buf)) - piggyback::kHeaderBytes;
    int32_t saved;
    std::memcpy(&saved, wire, piggyback::kHeaderBytes);
    std::memcpy(wire, &header, piggyback::kHeaderBytes);
    ++borrowed::g_lent;
    const int rc = PMPI_Send(wire, n, MPI_BYTE, dest, tag, p.real);
    std::memcpy(wire, &saved, piggyback::kHeaderBytes);
    return rc;
  }
  alignas(64) char bounce[piggyback::kStackWire];
  char *const wire = piggyback::stack_wire(bounce, buf, bytes);
  std::memcpy(wire, &header, piggyback::kHeaderBytes);
  piggyback::copy_small(wire + piggyback::kHeaderBytes, buf, size_t(bytes));
  if (direct) return PMPI_Send(wire, n, MPI_BYTE, dest, tag, p.real);
  return split::send_blocking(wire, n, MPI_BYTE, dest, tag, p.real, mode);
}

// A blocking receive into `capacity` bytes of a built-in type, its header in the bytes before
// `buf` or through a bounce as send's; `s` is the status to fill (the caller's, or its own for
// MPI_STATUS_IGNORE). Above 8 KiB of capacity (on a communicator whose large messages travel
// split) a message of up to 8 KiB comes this way, a larger one as a split header whose payload
// recv_unusual receives (so does any message from a sender this rank asked to split everything,
// payload_prepost.hpp).
[[gnu::always_inline]] inline int recv(void *buf, int capacity, int source, int tag,
                                       MPI_Status &s, const ShortPath &p, uintptr_t program_sp) {
  ProtocolState &st = state();
  alignas(64) char bounce[piggyback::kStackWire];
  const uint64_t posting = st.next_posting++;
  const int wire_capacity =
      piggyback::kHeaderBytes + std::min(capacity, int(piggyback::kBounceLimit));
  const bool polls = split::must_poll();
  const bool in_place = !polls && borrowed::borrow(buf, capacity, program_sp);
  char *const wire = in_place ? static_cast<char *>(buf) - piggyback::kHeaderBytes
                              : piggyback::stack_wire(bounce, buf, capacity);
  int32_t saved = 0;
  if (in_place) {
    std::memcpy(&saved, wire, piggyback::kHeaderBytes);
    ++borrowed::g_lent;
  }
  int rc = polls ? split::recv_blocking(wire, wire_capacity, MPI_BYTE, source, tag, p.real, s)
                 : PMPI_Recv(wire, wire_capacity, MPI_BYTE, source, tag, p.real, &s);
  // The header, or what came of a split header (its 3 bytes; recv_unusual reads no more).
  int32_t header;
  std::memcpy(&header, wire, piggyback::kHeaderBytes);
  if (in_place) std::memcpy(wire, &saved, piggyback::kHeaderBytes);
  if (rc != MPI_SUCCESS) message_failed(rc);  // its header did not arrive
  // At most kStackWire bytes came: the count's high part in the status is zero.
  static_assert(piggyback::kStackWire < (1 << 30));
  const int bytes = s.count_lo - piggyback::kHeaderBytes;
  if (bytes < 0)
    return recv_unusual(buf, capacity, source, tag, s, reinterpret_cast<const char *>(&header),
                        posting, p);
  if (!in_place) piggyback::copy_small(buf, wire + piggyback::kHeaderBytes, size_t(bytes));
  s.count_lo = bytes;
  if (intra_epoch_in_run_mode(header))
    ++st.received[st.epoch & 3][size_t(world_of(p, s.MPI_SOURCE))];  // intra-epoch, nothing to log
  else
    recv_noted(buf, bytes, source, tag, s, header, posting, p.app);
  return MPI_SUCCESS;
}

// The payload bytes of `count` elements of a built-in `type` if they are at most `most`; -1
// otherwise. MPICH keeps a built-in type's size in bits 8-15 of its handle (kind bits 01);
// built-in types are contiguous. Pair types (MPI_FLOAT_INT is a direct handle), derived types
// and size-0 markers are not taken.
[[gnu::always_inline]] inline int builtin_bytes(int count, MPI_Datatype type, int most) {
  if ((uint32_t(type) >> 30) != 1 || count < 0) return -1;
  const int64_t bytes = int64_t(count) * ((uint32_t(type) >> 8) & 0xff);
  if (bytes > most || (bytes == 0 && count != 0)) return -1;
  return int(bytes);
}

// The rest of an MPI_Wait whose small message needs the general completion (SmallWait::General):
// inside an Entry, what wait_request would have done with PMPI_Wait's result, then the hook.
[[gnu::noinline]] int wait_general(MPI_Request &handle, MPI_Status *status, MPI_Status &reported,
                                   int rc);

// What an MPI_Test whose small message needs the general completion (SmallWait::General) hands
// it inside an Entry: the request completed in c3 if PMPI_Test said `flag`. The wrapper's
// outcome path then decides and hands out the call's result (so a log, if one began, has it).
[[gnu::noinline]] void test_general(MPI_Request &handle, int flag, MPI_Status &reported, int rc);

// What an MPI_Waitsome, _Testany, _Testsome or _Testall whose small messages need the
// general completion (SmallWait::General) hands it inside an Entry: the requests MPICH
// completed, completed in c3. The wrapper's outcome path then decides the call (as test_general).
[[gnu::noinline]] void set_general(const SmallSet &set);

// Room for a SmallSet's results on the wrapper's stack (its requests are the lane's polled set).
struct SetArrays {
  MPI_Status reported[kMaxRequests];
  int completed[kMaxRequests];
  SmallSet set{nullptr, nullptr, reported, completed};
};

// A call of a set over `count` requests on the wrapper's stack: `call` runs the lane's part
// (small_completion.hpp). Returns whether the lane did the call; after SmallWait::General what
// MPICH completed goes to the general completion, and the wrapper's outcome path does the call.
template <class Call>
[[gnu::always_inline]] inline bool set_call(int count, Call call) {
  if (uint32_t(count) > uint32_t(kMaxRequests) || !quiet()) return false;
  SetArrays a;
  const SmallWait outcome = call(a.set);
  if (outcome == SmallWait::General) set_general(a.set);
  return outcome == SmallWait::Done;
}

// MPI_Isend of a message that travels split (split_lane.hpp): `dest` a rank of MPI_COMM_WORLD,
// which has a bulk. Returns the call's result.
[[gnu::noinline]] int isend_split(const void *buf, int count, MPI_Datatype type, int dest,
                                  int tag, MPI_Request *request);
// MPI_Irecv of `bytes` (above the bounce limit) once this rank asked for split messages
// (split_lane.hpp): false, with nothing done, unless prepost::eligible allows it.
[[gnu::noinline]] bool irecv_preposted(void *buf, int count, MPI_Datatype type, int64_t bytes,
                                       int source, int tag, MPI_Request *request, int &rc);

// The rest of an MPI_Waitall whose small messages need the general completion
// (SmallWait::General): inside an Entry, the hand-over and the hook's loop
// (messages/small_completion.cpp).
[[gnu::noinline]] int waitall_general(int count, MPI_Request handles[], MPI_Status statuses[],
                                      const SmallRequests &small, int rc);

}  // namespace fast

[[gnu::always_inline]] inline bool fast_Send(const void *buf, int count, MPI_Datatype datatype,
                                             int dest, int tag, MPI_Comm comm, int &rc) {
  const int bytes = fast::builtin_bytes(count, datatype, int(piggyback::kBounceLimit));
  if (comm != MPI_COMM_WORLD || bytes < 0 || !fast::quiet() ||
      uint32_t(dest) >= uint32_t(rt().size) || payload_window::splits_all_to(dest))
    return false;
  ++g_depth;  // inside the layer while in MPICH
  rc = fast::send(buf, bytes, dest, tag, SendMode::Standard, fast::kWorldPath,
                  borrowed::program_frames());
  --g_depth;
  return true;
}

[[gnu::always_inline]] inline bool fast_Recv(void *buf, int count, MPI_Datatype datatype,
                                             int source, int tag, MPI_Comm comm,
                                             MPI_Status *status, int &rc) {
  const int capacity = fast::builtin_bytes(count, datatype, INT_MAX);
  if (comm != MPI_COMM_WORLD || capacity < 0 || !fast::quiet() || source == MPI_PROC_NULL)
    return false;
  // Above the bounce limit a message travels split, unless MPI_COMM_WORLD has no bulk.
  if (capacity > piggyback::kBounceLimit && rt().bulk == MPI_COMM_NULL) return false;
  MPI_Status ignored;
  ++g_depth;
  rc = fast::recv(buf, capacity, source, tag, status == MPI_STATUS_IGNORE ? ignored : *status,
                  fast::kWorldPath, borrowed::program_frames());
  --g_depth;
  return true;
}

[[gnu::always_inline]] inline bool fast_Isend(const void *buf, int count, MPI_Datatype datatype,
                                              int dest, int tag, MPI_Comm comm,
                                              MPI_Request *request, int &rc) {
  const int bytes = fast::builtin_bytes(count, datatype, INT_MAX);
  if (comm != MPI_COMM_WORLD || bytes < 0 || !fast::quiet() ||
      uint32_t(dest) >= uint32_t(rt().size))
    return false;
  if (bytes > piggyback::kBounceLimit || payload_window::splits_all_to(dest)) {
    if (rt().bulk == MPI_COMM_NULL) return false;  // sent inline (split::splits_large)
    rc = fast::isend_split(buf, count, datatype, dest, tag, request);
    return true;
  }
  Request *r;
  const MPI_Request h = take_small_slot(Request::Kind::Send, &r);
  const int wire = piggyback::kHeaderBytes + bytes;
  char *const w = fast::describe(*r, buf, count, datatype, dest, tag, bytes);
  const int32_t header = piggyback::make_header(state().epoch, false);  // quiet(): Run mode
  std::memcpy(w, &header, piggyback::kHeaderBytes);
  piggyback::copy_small(w + piggyback::kHeaderBytes, buf, size_t(bytes));
  ++state().sent[size_t(dest)];
  ++g_depth;  // inside the layer while in MPICH
  rc = PMPI_Isend(w, wire, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r->real);
  --g_depth;
  if (rc != MPI_SUCCESS) {
    --state().sent[size_t(dest)];
    MPI_Request gone = h;
    release_small_slot(*r, gone);
    return true;
  }
  *request = h;
  return true;
}

[[gnu::always_inline]] inline bool fast_Irecv(void *buf, int count, MPI_Datatype datatype,
                                              int source, int tag, MPI_Comm comm,
                                              MPI_Request *request, int &rc) {
  const int capacity = fast::builtin_bytes(count, datatype, INT_MAX);
  if (comm != MPI_COMM_WORLD || capacity < 0 || !fast::quiet() || source == MPI_PROC_NULL)
    return false;
  // Once this rank asked for split messages every receive awaits its header (the general path),
  // but a large one that may post its payload's receive at once (split_lane.hpp).
  if (prepost::diverting())
    return capacity > piggyback::kBounceLimit &&
           fast::irecv_preposted(buf, count, datatype, capacity, source, tag, request, rc);
  if (capacity > piggyback::kBounceLimit) return false;
  Request *r;
  const MPI_Request h = take_small_slot(Request::Kind::Recv, &r);
  const int wire = piggyback::kHeaderBytes + capacity;
  char *const w = fast::describe(*r, buf, count, datatype, source, tag, capacity);
  ProtocolState &st = state();
  r->posting = st.next_posting++;
  r->effective_source = source;
  r->effective_tag = tag;
  ++g_depth;
  rc = PMPI_Irecv(w, wire, MPI_BYTE, source, tag, MPI_COMM_WORLD, &r->real);
  --g_depth;
  if (rc != MPI_SUCCESS) {
    MPI_Request gone = h;
    release_small_slot(*r, gone);
    return true;
  }
  *request = h;
  return true;
}

[[gnu::always_inline]] inline bool fast_Wait(MPI_Request *request, MPI_Status *status, int &rc) {
  if (!fast::quiet()) return false;
  MPI_Status reported;
  switch (wait_small(*request, status, reported, rc)) {
    case SmallWait::NotSmall: return false;
    case SmallWait::Done: return true;
    case SmallWait::General: break;
  }
  rc = fast::wait_general(*request, status, reported, rc);
  return true;
}

// In Run mode an MPI_Test's outcome is not logged, so the lane may decide it.
[[gnu::always_inline]] inline bool fast_Test(MPI_Request *request, int *flag, MPI_Status *status,
                                             int &rc) {
  if (!fast::quiet()) return false;
  MPI_Status reported;
  int done = 0;
  switch (test_small(*request, done, status, reported, rc)) {
    case SmallWait::NotSmall: return false;
    case SmallWait::Done: *flag = done; return true;
    case SmallWait::General: break;
  }
  fast::test_general(*request, done, reported, rc);
  return false;
}

// In Run mode the outcomes of these four are not logged either. (MPI_Waitany keeps the general
// completion: one PMPI_Waitsome there completes all that arrived, and the next calls find them
// done in c3; a PMPI_Waitany per call ran at 0.73 of that.)
[[gnu::always_inline]] inline bool fast_Testany(int count, MPI_Request handles[], int *index,
                                                int *flag, MPI_Status *status, int &rc) {
  return fast::set_call(count, [&](SmallSet &set) {
    return test_any_small(count, handles, *index, *flag, status, set, rc);
  });
}

[[gnu::always_inline]] inline bool fast_Waitsome(int count, MPI_Request handles[], int *outcount,
                                                 int indices[], MPI_Status statuses[], int &rc) {
  return fast::set_call(count, [&](SmallSet &set) {
    return some_small(true, count, handles, *outcount, indices, statuses, set, rc);
  });
}

[[gnu::always_inline]] inline bool fast_Testsome(int count, MPI_Request handles[], int *outcount,
                                                 int indices[], MPI_Status statuses[], int &rc) {
  return fast::set_call(count, [&](SmallSet &set) {
    return some_small(false, count, handles, *outcount, indices, statuses, set, rc);
  });
}

[[gnu::always_inline]] inline bool fast_Testall(int count, MPI_Request handles[], int *flag,
                                                MPI_Status statuses[], int &rc) {
  return fast::set_call(count, [&](SmallSet &set) {
    return test_all_small(count, handles, *flag, statuses, set, rc);
  });
}

[[gnu::always_inline]] inline bool fast_Waitall(int count, MPI_Request handles[],
                                                MPI_Status statuses[], int &rc) {
  if (uint32_t(count) > uint32_t(fast::kMaxRequests) || !fast::quiet()) return false;
  Request *reqs[fast::kMaxRequests];
  MPI_Request reals[fast::kMaxRequests];
  MPI_Status reported[fast::kMaxRequests];
  int arrived[fast::kMaxRequests];
  MPI_Status round[fast::kMaxRequests];
  SmallRequests small{reqs, reals, reported, arrived, round};
  switch (wait_all_small(count, handles, statuses, small, rc)) {
    case SmallWait::NotSmall: return false;
    case SmallWait::Done: return true;
    case SmallWait::General: break;
  }
  rc = fast::waitall_general(count, handles, statuses, small, rc);
  return true;
}

}  // namespace c3::mpi
