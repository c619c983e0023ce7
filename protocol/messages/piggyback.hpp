// The piggybacked header on every application message: the sender's epoch colour (2 bits), whether
// the sender still logs non-determinism (1 bit) and a marker. On the wire a message is bytes:
// 4 header bytes, then the payload. Small contiguous messages travel through a bounce buffer as
// MPI_BYTE (one copy is cheaper than any datatype work: MPICH packs even a contiguous struct
// type); large ones use a struct of bytes at absolute addresses, cached per (buffer, count,
// type) so repeated transfers from one buffer cost no datatype work. Both sides describe a
// contiguous payload as bytes, so any send path matches any receive path. Large messages on
// MPI_COMM_WORLD travel in two parts instead (split_transfer.hpp): a 3-byte split header, which
// no inline message can be mistaken for (those are 4 bytes or more), then the payload apart.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <cstring>

#include "state/protocol_state.hpp"

namespace c3::mpi::piggyback {

constexpr int kHeaderBytes = 4;
// Up to this many payload bytes a message is copied through a bounce buffer; larger ones travel
// split. MPICH 4.0.2 over UCX's shared memory sends a message of up to at least 8248 bytes in one
// eager fragment and one of 8256 by rendezvous, 4-6 times slower in a window of them (plain MPI
// ping-pong scans, docs/protocol.md "Why 8 KiB"): 8 KiB of payload with its header stays eager,
// and above the limit the split transfer (0.92-0.96 of one message) beats a copy (0.5-0.6).
constexpr int64_t kBounceLimit = 8 * 1024;

constexpr int32_t kMarker = 0x5c300000;  // bits 20-31; colour and logging bit in 0-2
constexpr int32_t kMarkerMask = int32_t(0xfff00000);

[[gnu::always_inline]] inline int32_t make_header(uint64_t epoch, bool logging) {
  return kMarker | int32_t(epoch & 3) | (logging ? 4 : 0);
}
// False if `header` is not a c3 header (a peer not built with c3cc, or a bug).
inline bool read_header(int32_t header, int &colour, bool &logging) {
  if ((header & kMarkerMask) != kMarker) return false;
  colour = header & 3;
  logging = (header & 4) != 0;
  return true;
}

// The split header: two marker bytes, then colour and logging bit as in the 4-byte header, and
// kSplitsAll: the sender sends every message to this receiver split from now on (requested by the
// receiver, payload_window.hpp), so a receive that matches a later message of the same source,
// communicator and tag may post its payload's receive before the header comes (payload_prepost.hpp).
constexpr int kSplitHeaderBytes = 3;
constexpr int32_t kSplitsAll = 8;
inline void encode_split_header(int32_t header, unsigned char out[kSplitHeaderBytes]) {
  out[0] = 0x5c;
  out[1] = 0x3b;
  out[2] = static_cast<unsigned char>(header & (7 | kSplitsAll));
}
// `header` gets the colour and logging bit, and kSplitsAll if the sender set it (strip it before
// the header goes to the protocol: split_flag).
inline bool decode_split_header(const unsigned char *in, int32_t &header) {
  if (in[0] != 0x5c || in[1] != 0x3b || in[2] > (7 | kSplitsAll)) return false;
  header = kMarker | in[2];
  return true;
}
// Takes kSplitsAll out of a decoded split header; returns whether it was set.
inline bool split_flag(int32_t &header) {
  const bool all = (header & kSplitsAll) != 0;
  header &= ~kSplitsAll;
  return all;
}

struct Wire {
  const void *buf;
  int count;
  MPI_Datatype type;
};

// Sets up `r` (bounce buffer or wire type) and returns what to hand to PMPI for the send.
// `copy`: always through a bounce buffer (buffered sends) when the type is contiguous.
Wire prepare_send(Request &r, const void *buf, int count, MPI_Datatype type, int32_t header,
                  bool copy = false);
// Whether `type` is a plain run of bytes (size == extent, lb == 0, packed in its own order).
bool contiguous(MPI_Datatype type);
// count * size of `type` (cached per built-in type).
int64_t payload_bytes(int count, MPI_Datatype type);
// Same for a receive into (buf, count, type). `inline_bounded`: no message on this communicator
// carries more than kBounceLimit payload bytes with its header (larger ones travel split), so a
// contiguous receive of any size takes its header through a bounce buffer of that size.
Wire prepare_recv(Request &r, void *buf, int count, MPI_Datatype type, bool inline_bounded = false);
// What a receive of the wire form found.
enum class Arrival {
  Payload,      // header and payload: copied out, `st` counts the payload only
  SplitHeader,  // the header of a split message: its payload follows apart
  NoHeader,     // no c3 header (a peer not built with c3cc, or a bug)
};
// A receive that completed without a c3 header ends the job: MPICH reported an error for it in
// `st` (layer.hpp: message_failed), or its sender was not built with c3cc.
[[noreturn]] void headerless_arrival(const MPI_Status &st);
// After the receive completed with `st`: copies a bounced payload out and returns the header.
Arrival finish_recv(Request &r, MPI_Status &st, int32_t &header);
// Gives r a bounce buffer of n bytes' size class (a spare one if there is).
void grow_bounce(Request &r, size_t n);
// A bounce above the small size goes back to its class's spares (or is freed).
void return_bounce(BounceBuffer &b);
// Sizes r's bounce buffer to n bytes (kHeaderBytes + kBounceLimit + kAlignSlack at most), reusing
// a spare one of its size class. Inline: every small message sizes one.
[[gnu::always_inline]] inline void size_bounce(Request &r, size_t n) {
  if (n > r.bounce.capacity() && n > BounceBuffer::kSmallCapacity) grow_bounce(r, n);
  r.bounce.resize(n);
}
// More than a few bytes: the C library's memcpy, out of line. Inlined where the size is known
// to be at most 8 KiB, gcc copied with `rep movsq`, 1.5 times the library's time at 1-2 KiB
// even with source and destination aligned alike.
void copy_bytes(void *to, const void *from, size_t n);
// Where a message sits in a bounce buffer. A payload of at least kAlignFrom bytes is placed at
// the same address as the program's buffer modulo 64, so the copies in and out run at full
// speed: on these CPUs (AMD family 25), when the destination lay 1 to 31 bytes past the source
// modulo 4096, glibc's memcpy of 4 KiB or more ran up to 27 times slower and gcc's inline
// `rep movsq` 3 to 5 times slower (bench/README.md, sections 1-3). A payload right behind the header
// of a bounce that starts where the program's buffer does (page-aligned buffers, 64-byte aligned
// heap blocks) is 4 bytes past it. Smaller payloads start the bounce, which then fits the 64
// bytes a request slot keeps.
constexpr int64_t kAlignFrom = 1024;
constexpr size_t kAlignSlack = 63;
// The offset in `bounce` at which a message for `buf` starts (its payload 4 bytes later).
[[gnu::always_inline]] inline size_t wire_offset(const char *bounce, const void *buf) {
  return (reinterpret_cast<uintptr_t>(buf) - reinterpret_cast<uintptr_t>(bounce) -
          uintptr_t(kHeaderBytes)) & kAlignSlack;
}
// Sizes r's bounce for a message with up to `payload` bytes to or from `buf` and returns where
// the message starts (r.wire_at says so later: wire_of).
[[gnu::always_inline]] inline char *place_wire(Request &r, const void *buf, int64_t payload) {
  const bool align = payload >= kAlignFrom;
  size_bounce(r, size_t(kHeaderBytes + payload) + (align ? kAlignSlack : 0));
  r.wire_at = align ? uint8_t(wire_offset(r.bounce.data(), buf)) : 0;
  return r.bounce.data() + r.wire_at;
}
[[gnu::always_inline]] inline const char *wire_of(const Request &r) {
  return r.bounce.data() + r.wire_at;
}
// The header's receive of a receive whose payload's receive is posted apart before its header
// comes (payload_prepost.hpp): the split header fits the request's own small bounce, as would a
// few bytes inline (a sender that ignored the ask; more would be cut short).
constexpr int64_t kHeaderOnlyPayload = 16;
inline Wire prepare_header_recv(Request &r, void *buf) {
  char *wire = place_wire(r, buf, kHeaderOnlyPayload);
  r.wire = MPI_DATATYPE_NULL;
  return Wire{wire, int(kHeaderBytes + kHeaderOnlyPayload), MPI_BYTE};
}
// A bounce on the stack for a blocking call: kStackWire bytes, 64-byte aligned.
constexpr size_t kStackWire = size_t(kHeaderBytes + kBounceLimit) + kAlignSlack;
[[gnu::always_inline]] inline char *stack_wire(char *bounce, const void *buf, int64_t payload) {
  return payload < kAlignFrom ? bounce : bounce + wire_offset(bounce, buf);
}
// Copies the few bytes of a small message inline: a library memcpy call costs more than the copy.
[[gnu::always_inline]] inline void copy_small(void *to, const void *from, size_t n) {
  auto *d = static_cast<char *>(to);
  const auto *s = static_cast<const char *>(from);
  if (n > 32) {
    copy_bytes(d, s, n);
  } else if (n >= 16) {  // two overlapping 16-byte halves
    uint64_t a, b, c, e;
    std::memcpy(&a, s, 8), std::memcpy(&b, s + 8, 8);
    std::memcpy(&c, s + n - 16, 8), std::memcpy(&e, s + n - 8, 8);
    std::memcpy(d, &a, 8), std::memcpy(d + 8, &b, 8);
    std::memcpy(d + n - 16, &c, 8), std::memcpy(d + n - 8, &e, 8);
  } else if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, s, 8), std::memcpy(&b, s + n - 8, 8);
    std::memcpy(d, &a, 8), std::memcpy(d + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, s, 4), std::memcpy(&b, s + n - 4, 4);
    std::memcpy(d, &a, 4), std::memcpy(d + n - 4, &b, 4);
  } else {
    for (size_t i = 0; i < n; ++i) d[i] = s[i];
  }
}
// Frees what prepare_* set up.
void release(Request &r);

// At MPI_Finalize.
void free_cached_types();

// Fixes a probed message's status to count the payload only. False for a split header, whose
// payload size the caller learns from the payload itself.
bool fix_probe_status(MPI_Status &st);

}  // namespace c3::mpi::piggyback
