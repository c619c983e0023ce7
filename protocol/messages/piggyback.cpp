#include "messages/piggyback.hpp"

#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "messages/mpich_status.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace c3::mpi::piggyback {
namespace {

constexpr size_t kMaxCachedTypes = 256;  // absolute-address types

struct TypeInfo {
  int size = 0;
  bool contiguous = false;  // size == extent, lb == 0: a plain run of bytes
};

// Whether MPICH packs `type` (of `size` bytes, lb 0, extent `size`) as the bytes it covers, in
// their order: an extent equal to the size does not say so (a struct may list its blocks out of
// order). Packing is the identity exactly when every byte of the packed form comes from its own
// offset: byte i of the k-th pattern holds byte k of i, for every k that offsets need.
bool packs_as_is(MPI_Datatype type, int size) {
  constexpr int kLargestChecked = 64 << 20;  // larger ones take the datatype path
  if (size > kLargestChecked) return false;
  std::vector<unsigned char> in(static_cast<size_t>(size)), out(static_cast<size_t>(size));
  for (int shift = 0; shift == 0 || (int64_t(size) - 1) >> shift; shift += 8) {
    for (int i = 0; i < size; ++i) in[size_t(i)] = static_cast<unsigned char>(i >> shift);
    int position = 0;
    if (PMPI_Pack(in.data(), 1, type, out.data(), size, &position, MPI_COMM_SELF) != MPI_SUCCESS ||
        position != size || in != out)
      return false;
  }
  return true;
}

// The verdict is kept with the program's datatype while c3 maps the MPICH handle to it: MPICH
// may give a freed type's handle to a new one.
bool plain_bytes(MPI_Datatype real, int size) {
  auto &types = handles().types;
  auto *slot = types.find(types.app_of(real));  // null for a type c3 does not track
  if (!slot || slot->released) return packs_as_is(real, size);
  if (slot->info.plain_bytes == 0) slot->info.plain_bytes = packs_as_is(real, size) ? 1 : 2;
  return slot->info.plain_bytes == 1;
}

TypeInfo type_info(MPI_Datatype type) {
  // A built-in type (kind bits 01) carries its size in bits 8-15 and is contiguous; size-0
  // markers (MPI_LB, MPI_UB) go the long way.
  if ((uint32_t(type) >> 30) == 1) {
    const int size = int((uint32_t(type) >> 8) & 0xff);
    if (size != 0) return TypeInfo{size, true};
  }
  // Direct-mapped in front of the map: every message asks.
  struct Slot {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    TypeInfo info;
  };
  static Slot recent[16];
  Slot &slot = recent[unsigned(type) & 15];
  if (slot.type == type && type != MPI_DATATYPE_NULL) return slot.info;
  // Only built-in types are remembered: a derived type's handle is reused after it is freed.
  static std::map<MPI_Datatype, TypeInfo> known;
  auto it = known.find(type);
  if (it != known.end()) {
    slot.type = type;
    slot.info = it->second;
    return it->second;
  }
  TypeInfo info;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_size(type, &info.size);
  PMPI_Type_get_extent(type, &lb, &extent);
  info.contiguous = lb == 0 && extent == info.size && (info.size == 0 || plain_bytes(type, info.size));
  // Only built-in types are immutable; derived handles may be freed and reused.
  if ((type >> 30 & 3) == 1) known.emplace(type, info);
  return info;
}

// Absolute-address struct [4 bytes at the header slot, the payload at buf], used with
// MPI_BOTTOM. A contiguous payload is described as bytes, so the wire signature is bytes
// whichever path each side takes; other layouts keep their type.
MPI_Datatype make_absolute_type(const void *header, const void *buf, int count, MPI_Datatype type) {
  TypeInfo info = type_info(type);
  int64_t bytes = int64_t(count) * info.size;
  bool as_bytes = info.contiguous && bytes <= INT32_MAX;
  int lengths[2] = {kHeaderBytes, as_bytes ? int(bytes) : count};
  MPI_Aint displs[2];
  PMPI_Get_address(header, &displs[0]);
  PMPI_Get_address(buf, &displs[1]);
  MPI_Datatype types[2] = {MPI_BYTE, as_bytes ? MPI_BYTE : type};
  MPI_Datatype t;
  PMPI_Type_create_struct(2, lengths, displs, types, &t);
  PMPI_Type_commit(&t);
  return t;
}

// Cached absolute types own their header slot; an entry in use by a transfer with another
// header value (or any receive) is not shared.
struct AbsoluteEntry {
  std::unique_ptr<int32_t> header = std::make_unique<int32_t>(0);
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int in_use = 0;
};
using AbsoluteKey = std::tuple<uintptr_t, int, MPI_Datatype>;
std::map<AbsoluteKey, AbsoluteEntry> g_absolute;
std::map<MPI_Datatype, AbsoluteKey> g_absolute_by_type;

MPI_Datatype absolute_type(Request &r, const void *buf, int count, MPI_Datatype type,
                           bool sending, int32_t header) {
  AbsoluteKey key{reinterpret_cast<uintptr_t>(buf), count, type};
  if ((type >> 30 & 3) == 1) {
    auto it = g_absolute.find(key);
    if (it == g_absolute.end() && g_absolute.size() >= kMaxCachedTypes) {
      for (auto e = g_absolute.begin(); e != g_absolute.end(); ++e)
        if (e->second.in_use == 0) {
          g_absolute_by_type.erase(e->second.type);
          PMPI_Type_free(&e->second.type);
          g_absolute.erase(e);
          break;
        }
    }
    if (it == g_absolute.end() && g_absolute.size() < kMaxCachedTypes) {
      it = g_absolute.emplace(key, AbsoluteEntry{}).first;
      it->second.type = make_absolute_type(it->second.header.get(), buf, count, type);
      g_absolute_by_type[it->second.type] = key;
    }
    if (it != g_absolute.end()) {
      AbsoluteEntry &e = it->second;
      if (e.in_use == 0 || (sending && *e.header == header)) {
        if (sending) *e.header = header;
        ++e.in_use;
        r.wire_cached = true;
        return e.type;
      }
    }
  }
  r.header = header;
  r.wire_cached = false;
  return make_absolute_type(&r.header, buf, count, type);
}

const int32_t &absolute_header(const Request &r) {
  if (!r.wire_cached) return r.header;
  return *g_absolute.at(g_absolute_by_type.at(r.wire)).header;
}

// Bounce buffers above the small size a request slot keeps, kept for reuse by size class
// (powers of two, then the largest bounce): a window of mid-size messages allocated and freed
// one per message, and a large receive takes one of the largest for its header every time.
constexpr size_t kFullBounce = size_t(kHeaderBytes + kBounceLimit) + kAlignSlack;
constexpr size_t kMaxSparesPerClass = 64;
constexpr size_t kFirstClass = BounceBuffer::kSmallCapacity * 2;
constexpr int kFirstClassLog = 7;
static_assert(kFirstClass == size_t(1) << kFirstClassLog);
// Classes kFirstClass << 0, 1, ... below kFullBounce, then kFullBounce itself.
constexpr int kPowerClasses = [] {
  int n = 0;
  while ((kFirstClass << n) < kFullBounce) ++n;
  return n;
}();
constexpr int kClasses = kPowerClasses + 1;
std::vector<BounceBuffer> g_spare_bounces[kClasses];

// The size class of a bounce of n bytes (above the small size a slot keeps): its index, with
// the capacity it gets, or -1 for one larger than any bounce. Every large receive asks twice.
int bounce_class(size_t n, size_t &capacity) {
  if (n > kFullBounce) {
    capacity = n;
    return -1;
  }
  if (n > (kFirstClass << (kPowerClasses - 1))) {
    capacity = kFullBounce;
    return kClasses - 1;
  }
  const int cls = n <= kFirstClass ? 0 : 64 - __builtin_clzll(uint64_t(n - 1)) - kFirstClassLog;
  capacity = kFirstClass << cls;
  return cls;
}

}  // namespace

void grow_bounce(Request &r, size_t n) {
  {
    size_t capacity = 0;
    const int cls = bounce_class(n, capacity);
    if (cls >= 0 && !g_spare_bounces[cls].empty()) {
      r.bounce = std::move(g_spare_bounces[cls].back());
      g_spare_bounces[cls].pop_back();
    } else {
      r.bounce.release();
      r.bounce.resize(capacity);
    }
  }
  r.bounce.resize(n);
}

void return_bounce(BounceBuffer &b) {
  if (b.capacity() <= BounceBuffer::kSmallCapacity) return;
  size_t capacity = 0;
  const int cls = bounce_class(b.capacity(), capacity);
  if (cls >= 0 && capacity == b.capacity() && g_spare_bounces[cls].size() < kMaxSparesPerClass)
    g_spare_bounces[cls].push_back(std::move(b));
  else
    b.release();
}

void copy_bytes(void *to, const void *from, size_t n) { std::memcpy(to, from, n); }

bool contiguous(MPI_Datatype type) { return type_info(type).contiguous; }

int64_t payload_bytes(int count, MPI_Datatype type) { return int64_t(count) * type_info(type).size; }

Wire prepare_send(Request &r, const void *buf, int count, MPI_Datatype type, int32_t header,
                  bool copy) {
  TypeInfo info = type_info(type);
  int64_t bytes = int64_t(count) * info.size;
  if (info.contiguous && (bytes <= kBounceLimit || (copy && bytes <= INT32_MAX - kHeaderBytes))) {
    char *wire = place_wire(r, buf, bytes);
    std::memcpy(wire, &header, kHeaderBytes);
    if (bytes) copy_bytes(wire + kHeaderBytes, buf, size_t(bytes));
    r.wire = MPI_DATATYPE_NULL;
    return Wire{wire, int(kHeaderBytes + bytes), MPI_BYTE};
  }
  r.wire = absolute_type(r, buf, count, type, true, header);
  return Wire{MPI_BOTTOM, 1, r.wire};
}

Wire prepare_recv(Request &r, void *buf, int count, MPI_Datatype type, bool inline_bounded) {
  TypeInfo info = type_info(type);
  int64_t bytes = int64_t(count) * info.size;
  if (info.contiguous && (bytes <= kBounceLimit || inline_bounded)) {
    // A receive into a struct type costs MPICH far more than a bounce (measured: 9 % of the
    // bandwidth at 64 KiB, where the header of a split message lands here).
    bytes = std::min(bytes, kBounceLimit);
    char *wire = place_wire(r, buf, bytes);
    r.wire = MPI_DATATYPE_NULL;
    return Wire{wire, int(kHeaderBytes + bytes), MPI_BYTE};
  }
  r.bounce.clear();
  r.wire = absolute_type(r, buf, count, type, false, 0);
  return Wire{MPI_BOTTOM, 1, r.wire};
}

void headerless_arrival(const MPI_Status &st) {
  if (st.MPI_ERROR != MPI_SUCCESS) message_failed(st.MPI_ERROR);
  fatal("a message from rank " + std::to_string(st.MPI_SOURCE) +
        " carries no c3 header: build every rank with c3cc");
}

Arrival finish_recv(Request &r, MPI_Status &st, int32_t &header) {
  int64_t received = status_bytes(st);
  if (received < kHeaderBytes) {
    const void *first = r.bounce.empty() ? static_cast<const void *>(&absolute_header(r))
                                         : static_cast<const void *>(wire_of(r));
    if (received == kSplitHeaderBytes &&
        decode_split_header(static_cast<const unsigned char *>(first), header))
      return Arrival::SplitHeader;
    return Arrival::NoHeader;
  }
  int64_t payload = received - kHeaderBytes;
  if (!r.bounce.empty()) {
    const char *wire = wire_of(r);
    std::memcpy(&header, wire, kHeaderBytes);
    if (payload) copy_bytes(reinterpret_cast<void *>(r.buf), wire + kHeaderBytes, size_t(payload));
  } else {
    header = absolute_header(r);
  }
  set_status_bytes(st, payload);
  return Arrival::Payload;
}

void release(Request &r) {
  if (r.wire != MPI_DATATYPE_NULL) {
    if (!r.wire_cached) {
      PMPI_Type_free(&r.wire);
    } else {
      auto k = g_absolute_by_type.find(r.wire);
      if (k != g_absolute_by_type.end()) --g_absolute.at(k->second).in_use;
    }
  }
  r.wire = MPI_DATATYPE_NULL;
  r.wire_cached = false;
  return_bounce(r.bounce);
  r.bounce.clear();
}

void free_cached_types() {
  for (auto &spares : g_spare_bounces) spares.clear();
  for (auto &entry : g_absolute) PMPI_Type_free(&entry.second.type);
  g_absolute.clear();
  g_absolute_by_type.clear();
}

bool fix_probe_status(MPI_Status &st) {
  int64_t received = status_bytes(st);
  if (received == kSplitHeaderBytes) return false;
  if (received >= kHeaderBytes) set_status_bytes(st, received - kHeaderBytes);
  return true;
}

}  // namespace c3::mpi::piggyback
