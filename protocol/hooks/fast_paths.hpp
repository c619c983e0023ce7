// The common case of message-rate-bound code, decided in the wrapper before the layer's Entry
// (table attribute `fast`): MPI_Isend and MPI_Irecv of at most 60 bytes of a built-in type on
// MPI_COMM_WORLD while nothing needs the protocol's attention (Run mode, no checkpoint in
// progress, nothing to suppress), and MPI_Waitall over such requests only. The message travels
// with its header in the request's own 64-byte bounce buffer; the request takes a table slot
// from those this lane freed before, of which only the fields the lane writes differ from a
// reset entry, and gives it back the same way (requests.hpp: take_small_slot). Anything else,
// and every request such a call made once another call looks at it, takes the hooks' way.
// Each function returns whether it handled the call, its result in `rc`.
#pragma once
#include <mpi.h>

#include <cstring>

#include "layer/layer.hpp"
#include "messages/piggyback.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {

namespace fast {

constexpr int kWire = int(BounceBuffer::kSmallCapacity);  // header + payload
constexpr int kMaxRequests = 64;                           // MPI_Waitall's arrays on the stack

// Outermost call, Run mode, no checkpoint in progress, no orphaned requests, no restart's
// suppressions: the hooks would do nothing but the message itself.
[[gnu::always_inline]] inline bool quiet() {
  return g_depth == 0 && !g_attention && state().was_early.empty();
}

// The payload bytes of `count` elements of a built-in `type` (MPICH keeps the size in bits 8-15
// of a built-in handle) when they fit the wire with the header; -1 otherwise.
[[gnu::always_inline]] inline int payload_bytes(int count, MPI_Datatype type) {
  if ((uint32_t(type) >> 30) != 1 || uint32_t(count) > uint32_t(kWire)) return -1;
  const int bytes = count * int((uint32_t(type) >> 8) & 0xff);
  if (bytes > kWire - piggyback::kHeaderBytes || (bytes == 0 && count != 0)) return -1;
  return bytes;
}

// The entry as a nonblocking call of this lane leaves it.
[[gnu::always_inline]] inline void describe(Request &r, const void *buf, int count,
                                            MPI_Datatype type, int peer, int tag, int wire) {
  describe_message(r, buf, count, type, type, peer, tag, MPI_COMM_WORLD, MPI_COMM_WORLD);
  r.small = true;
  if (r.bounce.capacity() < size_t(kWire)) r.bounce.resize(size_t(kWire));
  r.bounce.resize(size_t(wire));
}

// A receive of this lane that needs more than counting (another epoch or mode, a failure):
// the general completion finishes MPI_Waitall (requests.cpp).
[[gnu::noinline]] int waitall_general(int n, Request *const reqs[], MPI_Request reals[],
                                      MPI_Status reported[], int rc, int count,
                                      MPI_Request handles[], MPI_Status statuses[]);

}  // namespace fast

[[gnu::always_inline]] inline bool fast_Isend(const void *buf, int count, MPI_Datatype datatype,
                                              int dest, int tag, MPI_Comm comm,
                                              MPI_Request *request, int &rc) {
  const int bytes = fast::payload_bytes(count, datatype);
  if (comm != MPI_COMM_WORLD || bytes < 0 || !fast::quiet() || uint32_t(dest) >= uint32_t(rt().size))
    return false;
  Request *r;
  const MPI_Request h = take_small_slot(Request::Kind::Send, &r);
  const int wire = piggyback::kHeaderBytes + bytes;
  fast::describe(*r, buf, count, datatype, dest, tag, wire);
  char *w = r->bounce.data();
  const int32_t header = outgoing_header();
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
  const int capacity = fast::payload_bytes(count, datatype);
  if (comm != MPI_COMM_WORLD || capacity < 0 || !fast::quiet() || source == MPI_PROC_NULL)
    return false;
  Request *r;
  const MPI_Request h = take_small_slot(Request::Kind::Recv, &r);
  const int wire = piggyback::kHeaderBytes + capacity;
  fast::describe(*r, buf, count, datatype, source, tag, wire);
  ProtocolState &st = state();
  r->posting = st.next_posting++;
  r->effective_source = source;
  r->effective_tag = tag;
  ++g_depth;
  rc = PMPI_Irecv(r->bounce.data(), wire, MPI_BYTE, source, tag, MPI_COMM_WORLD, &r->real);
  --g_depth;
  if (rc != MPI_SUCCESS) {
    MPI_Request gone = h;
    release_small_slot(*r, gone);
    return true;
  }
  *request = h;
  return true;
}

[[gnu::always_inline]] inline bool fast_Waitall(int count, MPI_Request handles[],
                                                MPI_Status statuses[], int &rc) {
  if (uint32_t(count) > uint32_t(fast::kMaxRequests) || !fast::quiet() || split::must_poll())
    return false;
  Request *reqs[fast::kMaxRequests];
  MPI_Request reals[fast::kMaxRequests];
  int n = 0;
  bool receives = false;
  for (int i = 0; i < count; ++i) {
    const uint32_t h = uint32_t(handles[i]), index = h & kIndexMask;
    if (handles[i] == MPI_REQUEST_NULL) continue;
    if ((h & ~kIndexMask) != kRequestType || index - 1 >= state().requests.size()) return false;
    Request &r = state().requests[index - 1];
    // (A small message of the hooks' path above 60 bytes has a spare bounce buffer to give back.)
    if (!r.small || r.done || r.kind == Request::Kind::Free || r.bounce.capacity() > size_t(fast::kWire))
      return false;
    reqs[n] = &r;
    reals[n++] = r.real;
    receives |= r.kind == Request::Kind::Recv;
  }
  MPI_Status reported[fast::kMaxRequests];
  MPI_Status *wanted = MPI_STATUSES_IGNORE;
  if (receives || statuses != MPI_STATUSES_IGNORE) {
    for (int k = 0; k < n; ++k) reported[k].MPI_ERROR = MPI_SUCCESS;  // MPICH sets it on errors
    wanted = reported;
  }
  ++g_depth;
  rc = n > 0 ? PMPI_Waitall(n, reals, wanted) : MPI_SUCCESS;
  --g_depth;
  // Every receive must be of this epoch in Run mode with the header inline (the lane's messages
  // are small, so a split header means a truncated large message).
  const int32_t plain = piggyback::make_header(state().epoch, false);
  bool general = rc != MPI_SUCCESS;
  for (int k = 0; k < n && !general; ++k)
    if (reqs[k]->kind == Request::Kind::Recv) {
      int32_t header;
      std::memcpy(&header, reqs[k]->bounce.data(), piggyback::kHeaderBytes);
      general = reported[k].count_lo < piggyback::kHeaderBytes || (header & ~4) != plain;
    }
  if (general) {
    rc = fast::waitall_general(n, reqs, reals, wanted, rc, count, handles, statuses);
    return true;
  }
  auto &received = state().received[state().epoch & 3];
  int k = 0;
  for (int i = 0; i < count; ++i) {
    MPI_Status *to = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    if (handles[i] == MPI_REQUEST_NULL) {
      empty_status(to);
      continue;
    }
    Request &r = *reqs[k];
    MPI_Status &s = reported[k++];
    if (r.kind == Request::Kind::Recv) {
      const int bytes = s.count_lo - piggyback::kHeaderBytes;  // at most 64 bytes came
      piggyback::copy_small(reinterpret_cast<void *>(r.buf),
                            r.bounce.data() + piggyback::kHeaderBytes, size_t(bytes));
      ++received[size_t(s.MPI_SOURCE)];
      if (to != MPI_STATUS_IGNORE) {
        s.count_lo = bytes;
        *to = s;  // MPI_Waitall sets MPI_ERROR of every status it fills
      }
    } else if (to != MPI_STATUS_IGNORE) {
      set_send_status(*to, s);
      to->MPI_ERROR = s.MPI_ERROR;
    }
    release_small_slot(r, handles[i]);
  }
  return true;
}

}  // namespace c3::mpi
