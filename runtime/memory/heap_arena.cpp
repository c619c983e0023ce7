// The application heap arena (see heap_arena.hpp).
//
// Layout: [base, first_chunk) holds the Header (bins, top pointer, statistics); then chunks up
// to `top`; above `top` the untouched rest of the reservation. Every chunk starts with a 16-byte
// header {prev_size, word}; the payload follows, so payloads are 16-byte aligned. `word` packs a
// tag (in use / free), the chunk size and flags. A free chunk keeps its free-list links in the
// first 16 payload bytes and its size in the next chunk's prev_size (the boundary tag), so
// neighbours coalesce in O(1). Free chunks sit in segregated bins: exact 16-byte classes below
// 1 KiB, then 16 sub-classes per power of two, with a bitmap to find the first non-empty bin
// (good fit in O(1)). Invariants: no two free chunks are adjacent, and the chunk below `top` is
// always in use (a freed chunk there merges into top).
//
// All state is in the arena itself, addressed by absolute pointers, so copying the live extents
// back to the same addresses restores the allocator along with the data.
#include "memory/heap_arena.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "support/error.hpp"
#include "support/text_format.hpp"

namespace c3::heap {

namespace detail {
uintptr_t arena_base = 0;
size_t arena_reserve = 0;
}  // namespace detail

namespace {

constexpr uint64_t kMagic = 0x3150414548334333ull;  // "C3HEAP1" little-endian-ish marker
constexpr uint32_t kVersion = 1;

constexpr size_t kAlign = 16;
constexpr size_t kChunkHeader = 16;  // prev_size + word
constexpr size_t kMinChunk = 32;     // header + two free-list links
constexpr size_t kPage = 4096;

// Bins: exact classes below kSmallLimit, then kSubBins sub-classes per power of two up to 2^kMaxLog.
constexpr size_t kSmallLimit = 1024;
constexpr unsigned kSubBinBits = 4;
constexpr unsigned kFirstLargeLog = 10;
constexpr unsigned kMaxLog = 47;  // chunk sizes stay below 2^47 (reserve limit)
constexpr size_t kSmallBins = kSmallLimit / kAlign;
constexpr size_t kBins = kSmallBins + (size_t(kMaxLog - kFirstLargeLog) << kSubBinBits);
constexpr size_t kBitmapWords = (kBins + 63) / 64;
static_assert(kBitmapWords <= 64, "the summary word covers at most 64 bitmap words");

constexpr size_t kMaxReserve = size_t(1) << kMaxLog;
constexpr size_t kMaxRequest = size_t(1) << (kMaxLog - 1);

// Returning memory: free chunks above this size give their interior pages back to the kernel;
// the region above top is trimmed to kTopKeep once it exceeds kTopTrimThreshold.
constexpr size_t kReleaseThreshold = size_t(1) << 20;
constexpr size_t kTopKeep = size_t(1) << 20;
constexpr size_t kTopTrimThreshold = size_t(2) << 20;
// Free chunks up to this size are saved whole (cheaper than splitting extents).
constexpr size_t kFreeSavedWhole = 4096;
// Blocks of kLargeBlock bytes or more start at a multiple of kLargeAlign. Large blocks hold
// messages, and MPICH over UCX moves a large message between two processes with one kernel copy
// (process_vm_readv) that ran 4-5 times slower when the sender's and the receiver's buffers
// differed in their address modulo 64 (measured 2026-11-27: an exchange of 128 KiB took 117 us
// instead of 23 us). glibc gives every block of 128 KiB or more the same page offset (16), so a
// program's large buffers line up there; these line up from 4 KiB on.
constexpr size_t kLargeBlock = 4096;
constexpr size_t kLargeAlign = 64;

// word = tag << 48 | size | flags (size is a multiple of 16, so the low 4 bits are free).
constexpr uint64_t kInUse = 1;
constexpr uint64_t kPrevInUse = 2;
constexpr uint64_t kReleased = 4;  // free chunk whose interior pages were given back
constexpr uint64_t kFlagMask = 15;
constexpr unsigned kTagShift = 48;
constexpr uint64_t kTagUsed = 0xC3A1;
constexpr uint64_t kTagFree = 0xC3F2;
constexpr uint64_t kSizeMask = ((uint64_t(1) << kTagShift) - 1) & ~kFlagMask;

struct Chunk {
  uint64_t prev_size;  // size of the previous chunk, meaningful only while that one is free
  uint64_t word;
  Chunk *next_free;  // free chunks only: the first payload bytes
  Chunk *prev_free;
};

struct Header {
  uint64_t magic;
  uint32_t version;
  uint32_t header_bytes;
  uint64_t base;
  uint64_t reserve;
  uintptr_t first_chunk;
  uintptr_t top;           // start of the untouched wilderness
  uintptr_t end;           // base + reserve
  // The two counters are not adjacent on purpose: gcc would merge their updates into one
  // 16-byte access, which stalls on the 8-byte stores of the previous call.
  uint64_t chunk_bytes_in_use;
  uintptr_t resident_end;  // every byte in [resident_end, end) reads as zero
  uint64_t blocks_in_use;
  uint64_t high_water;        // highest top - base
  uint64_t nonempty_words;    // bit w: bitmap[w] != 0
  uint64_t bitmap[kBitmapWords];
  Chunk *bins[kBins];
};

constexpr size_t kHeaderSpace = (sizeof(Header) + 63) & ~size_t(63);

// The arena's range (detail::arena_base/arena_reserve) is fixed by configuration; it is the
// only state outside the arena.
const uintptr_t &g_base = detail::arena_base;
const size_t &g_reserve = detail::arena_reserve;
inline bool arena_mapped() { return g_reserve != 0; }

inline Header &header() { return *reinterpret_cast<Header *>(g_base); }
inline Chunk *chunk_at(uintptr_t a) { return reinterpret_cast<Chunk *>(a); }
inline uintptr_t addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }
inline void *payload(Chunk *c) { return reinterpret_cast<char *>(c) + kChunkHeader; }
inline size_t size_of(uint64_t word) { return word & kSizeMask; }
inline uint64_t tag_of(uint64_t word) { return word >> kTagShift; }
inline uint64_t used_word(size_t size, uint64_t prev_in_use) {
  return (kTagUsed << kTagShift) | size | kInUse | prev_in_use;
}
// A free chunk's predecessor is always in use (free neighbours are merged).
inline uint64_t free_word(size_t size, uint64_t released) {
  return (kTagFree << kTagShift) | size | kPrevInUse | released;
}
inline uintptr_t align_up(uintptr_t v, size_t a) { return (v + a - 1) & ~(uintptr_t(a) - 1); }
inline uintptr_t align_down(uintptr_t v, size_t a) { return v & ~(uintptr_t(a) - 1); }
inline unsigned log2_floor(uint64_t v) { return 63u - unsigned(__builtin_clzll(v)); }
inline bool is_power_of_two(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

inline size_t chunk_size_for(size_t request) {
  size_t s = align_up(request + kChunkHeader, kAlign);
  return s < kMinChunk ? kMinChunk : s;
}


std::string human_size(size_t bytes) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  size_t value = bytes;
  unsigned unit = 0;
  while (unit + 1 < sizeof units / sizeof units[0] && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + " " + units[unit];
}

std::string describe_range(uintptr_t base, size_t reserve) {
  return hex(base) + " (" + human_size(reserve) + ")";
}

[[noreturn]] void report_corruption(const char *operation, const void *p) {
  std::fprintf(stderr, "c3: heap corruption: %s(%p) of a block not in use\n", operation, p);
  std::abort();
}

// ---- bins ----

inline size_t bin_of(size_t size) {
  if (size < kSmallLimit) return size / kAlign;
  unsigned fl = log2_floor(size);
  size_t sl = (size >> (fl - kSubBinBits)) & ((size_t(1) << kSubBinBits) - 1);
  return kSmallBins + (size_t(fl - kFirstLargeLog) << kSubBinBits) + sl;
}

// The first bin whose every chunk is at least `size` bytes.
inline size_t first_bin_fitting(size_t size) {
  if (size < kSmallLimit) return size / kAlign;
  unsigned fl = log2_floor(size);
  return bin_of(size + (size_t(1) << (fl - kSubBinBits)) - 1);
}

inline void mark_bin(Header &h, size_t b) {
  h.bitmap[b / 64] |= uint64_t(1) << (b % 64);
  h.nonempty_words |= uint64_t(1) << (b / 64);
}

inline void unmark_bin(Header &h, size_t b) {
  h.bitmap[b / 64] &= ~(uint64_t(1) << (b % 64));
  if (h.bitmap[b / 64] == 0) h.nonempty_words &= ~(uint64_t(1) << (b / 64));
}

// Index of the first non-empty bin >= b, or kBins.
inline size_t find_bin_from(const Header &h, size_t b) {
  if (b >= kBins) return kBins;
  size_t w = b / 64;
  uint64_t bits = h.bitmap[w] & (~uint64_t(0) << (b % 64));
  if (bits) return w * 64 + size_t(__builtin_ctzll(bits));
  uint64_t words = w + 1 < 64 ? h.nonempty_words & (~uint64_t(0) << (w + 1)) : 0;
  if (!words) return kBins;
  w = size_t(__builtin_ctzll(words));
  return w * 64 + size_t(__builtin_ctzll(h.bitmap[w]));
}

inline void bin_insert(Header &h, Chunk *c, size_t size) {
  size_t b = bin_of(size);
  Chunk *head = h.bins[b];
  c->next_free = head;
  c->prev_free = nullptr;
  if (head)
    head->prev_free = c;
  else
    mark_bin(h, b);
  h.bins[b] = c;
}

// Of the `total` bytes starting at c, keeps the first `keep`: the tail goes back to the bins as
// a free chunk (with `released`) when it is big enough to be one, else it stays with c and the
// next chunk learns that c is in use. Returns the bytes c now spans.
size_t keep_front(Header &h, Chunk *c, size_t keep, size_t total, uint64_t released) {
  size_t rest = total - keep;
  if (rest < kMinChunk) {
    chunk_at(addr(c) + total)->word |= kPrevInUse;
    return total;
  }
  Chunk *r = chunk_at(addr(c) + keep);
  r->word = free_word(rest, released);
  chunk_at(addr(r) + rest)->prev_size = rest;
  bin_insert(h, r, rest);
  return keep;
}

inline void bin_unlink(Header &h, Chunk *c, size_t size) {
  if (c->prev_free) {
    c->prev_free->next_free = c->next_free;
  } else {
    size_t b = bin_of(size);
    h.bins[b] = c->next_free;
    if (!c->next_free) unmark_bin(h, b);
  }
  if (c->next_free) c->next_free->prev_free = c->prev_free;
}

// ---- giving memory back ----

inline bool release_pages(uintptr_t lo, uintptr_t hi) {
  if (lo >= hi) return true;
  return madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTNEED) == 0;
}

// The pages a free chunk [start, end) may give back: its interior past the header and links.
inline uintptr_t releasable_lo(uintptr_t start) { return align_up(start + kMinChunk, kPage); }
inline uintptr_t releasable_hi(uintptr_t end) { return align_down(end, kPage); }

struct Span {
  uintptr_t start, end;
};

// Gives back the interior of the free chunk [start, end), skipping the parts that were released
// already (`done`, ascending; empty spans are {0, 0}) so a small free next to a huge released
// chunk costs little.
[[gnu::noinline]] bool release_interior(uintptr_t start, uintptr_t end, Span done_before,
                                        Span done_after) {
  uintptr_t lo = releasable_lo(start), hi = releasable_hi(end);
  uintptr_t cursor = lo;
  bool ok = true;
  for (const Span &done : {done_before, done_after}) {
    uintptr_t skip_lo = std::max(releasable_lo(done.start), lo);
    uintptr_t skip_hi = std::min(releasable_hi(done.end), hi);
    if (skip_lo >= skip_hi) continue;
    if (cursor < skip_lo) ok &= release_pages(cursor, skip_lo);
    cursor = std::max(cursor, skip_hi);
  }
  if (cursor < hi) ok &= release_pages(cursor, hi);
  return ok;
}

// Fresh zero pages over [lo, hi). Not MADV_DONTNEED: a restart may have mapped these pages from
// the checkpoint file (private), and dropping those makes them read the file again.
inline bool zero_pages(uintptr_t lo, uintptr_t hi) {
  if (lo >= hi) return true;
  void *want = reinterpret_cast<void *>(lo);
  return mmap(want, hi - lo, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == want;
}

[[gnu::noinline]] void trim_top_now(Header &h) {
  uintptr_t keep = align_up(h.top + kTopKeep, kPage);
  // Only lower resident_end when the pages really read as zero now (calloc relies on it).
  if (zero_pages(keep, align_up(h.resident_end, kPage))) h.resident_end = keep;
}

inline void trim_top(Header &h) {
  if (__builtin_expect(h.resident_end - h.top > kTopTrimThreshold, 0)) trim_top_now(h);
}

// ---- chunk operations ----

inline void note_top(Header &h) {
  if (h.top > h.resident_end) h.resident_end = h.top;
  if (h.top - g_base > h.high_water) h.high_water = h.top - g_base;
}

inline void account_alloc(Header &h, size_t size) {
  h.chunk_bytes_in_use += size;
  h.blocks_in_use += 1;
}

inline void account_free(Header &h, size_t size) {
  h.chunk_bytes_in_use -= size;
  h.blocks_in_use -= 1;
}

// An in-use chunk of at least csize bytes, or nullptr when the reservation is exhausted.
inline Chunk *take_chunk(Header &h, size_t csize) {
  Chunk *c;
  if (csize < kSmallLimit) {
    // Small bins are exact and all live in bitmap word 0.
    static_assert(kSmallBins == 64, "small bins fill bitmap word 0");
    uint64_t bits = h.bitmap[0] & (~uint64_t(0) << (csize / kAlign));
    size_t b = bits ? size_t(__builtin_ctzll(bits)) : find_bin_from(h, kSmallBins);
    c = b < kBins ? h.bins[b] : nullptr;
  } else {
    // The head of the request's own bin may fit; otherwise any chunk of a larger bin does.
    c = h.bins[bin_of(csize)];
    if (!c || size_of(c->word) < csize) {
      size_t b = find_bin_from(h, first_bin_fitting(csize));
      c = b < kBins ? h.bins[b] : nullptr;
    }
  }
  if (c) {
    uint64_t word = c->word;
    size_t size = size_of(word);
    bin_unlink(h, c, size);
    // The remainder's releasable interior lies inside the old one: the flag stays true.
    size = keep_front(h, c, csize, size, word & kReleased);
    c->word = used_word(size, kPrevInUse);
    account_alloc(h, size);
    return c;
  }
  if (csize > h.end - h.top) return nullptr;
  c = chunk_at(h.top);
  c->word = used_word(csize, kPrevInUse);  // the chunk below top is always in use
  h.top += csize;
  note_top(h);
  account_alloc(h, csize);
  return c;
}

// Frees an in-use chunk: merges it with free neighbours or into top, bins the result and gives
// back the pages of big free spans.
void release_chunk(Header &h, Chunk *c) {
  uint64_t word = c->word;
  size_t size = size_of(word);
  account_free(h, size);
  uintptr_t start = addr(c), end = start + size;
  Span released_before{0, 0}, released_after{0, 0};

  if (!(word & kPrevInUse)) {
    size_t prev_size = c->prev_size;
    Chunk *prev = chunk_at(start - prev_size);
    if (prev_size < kMinChunk || prev_size > start - h.first_chunk ||
        tag_of(prev->word) != kTagFree || size_of(prev->word) != prev_size)
      report_corruption("free", payload(c));
    bin_unlink(h, prev, prev_size);
    if (prev->word & kReleased) released_before = {start - prev_size, start};
    c->word = 0;  // a stale header would let a double free pass the tag check
    start -= prev_size;
  }

  if (end == h.top) {
    chunk_at(start)->word = 0;
    h.top = start;
    trim_top(h);
    return;
  }

  Chunk *next = chunk_at(end);
  uint64_t next_word = next->word;
  if (tag_of(next_word) == kTagFree) {
    size_t next_size = size_of(next_word);
    bin_unlink(h, next, next_size);
    if (next_word & kReleased) released_after = {end, end + next_size};
    next->word = 0;
    end += next_size;
  } else {
    next->word = next_word & ~kPrevInUse;
  }

  size_t total = end - start;
  uint64_t flag = 0;
  if (total > kReleaseThreshold && release_interior(start, end, released_before, released_after))
    flag = kReleased;
  Chunk *f = chunk_at(start);
  f->word = free_word(total, flag);
  chunk_at(end)->prev_size = total;
  bin_insert(h, f, total);
}

// Cuts an in-use chunk down to csize, freeing the tail (which merges with what follows).
void shrink_chunk(Header &h, Chunk *c, size_t csize) {
  uint64_t word = c->word;
  size_t size = size_of(word);
  if (size - csize < kMinChunk) return;
  c->word = used_word(csize, word & kPrevInUse);
  Chunk *tail = chunk_at(addr(c) + csize);
  tail->word = used_word(size - csize, kPrevInUse);
  // The tail's bytes were counted inside c; count it as a block so release_chunk can free it.
  h.blocks_in_use += 1;
  release_chunk(h, tail);
}

// The chunk of a pointer the application hands back; aborts when it is not an in-use block.
[[gnu::always_inline]] inline Chunk *checked_chunk(const Header &h, const void *p,
                                                  const char *operation) {
  uintptr_t a = addr(p);
  if (h.magic != kMagic || (a & (kAlign - 1)) || a < h.first_chunk + kChunkHeader || a >= h.top)
    report_corruption(operation, p);
  Chunk *c = chunk_at(a - kChunkHeader);
  uint64_t word = c->word;
  size_t size = size_of(word);
  if (tag_of(word) != kTagUsed || !(word & kInUse) || size < kMinChunk ||
      size > h.top - addr(c))
    report_corruption(operation, p);
  uintptr_t next = addr(c) + size;
  if (next != h.top) {
    uint64_t next_word = chunk_at(next)->word;
    uint64_t tag = tag_of(next_word);
    if ((tag != kTagUsed && tag != kTagFree) || !(next_word & kPrevInUse))
      report_corruption(operation, p);
  }
  return c;
}

void format(Header &h) {
  std::memset(&h, 0, sizeof h);
  h.magic = kMagic;
  h.version = kVersion;
  h.header_bytes = sizeof(Header);
  h.base = g_base;
  h.reserve = g_reserve;
  h.first_chunk = g_base + kHeaderSpace;
  h.top = h.first_chunk;
  h.end = g_base + g_reserve;
  h.resident_end = h.first_chunk;
  h.high_water = kHeaderSpace;
}

// The header, initializing the arena with the defaults when nobody did (should not happen: the
// runtime's main does it first) and formatting it after a reset nobody restored into.
[[gnu::noinline]] Header &prepare_header() {
  if (!arena_mapped()) init(kDefaultBase, kDefaultReserve);
  Header &h = header();
  if (h.magic != kMagic) {
    if (h.magic != 0) {
      std::fprintf(stderr, "c3: heap corruption: the heap header at %p is damaged\n",
                   static_cast<void *>(&h));
      std::abort();
    }
    format(h);
  }
  return h;
}

inline Header &ready_header() {
  if (__builtin_expect(arena_mapped() && header().magic == kMagic, 1)) return header();
  return prepare_header();
}

// A block at the next free place: 16-byte aligned.
inline void *allocate_anywhere(Header &h, size_t size) {
  if (size > kMaxRequest) {
    errno = ENOMEM;
    return nullptr;
  }
  Chunk *c = take_chunk(h, chunk_size_for(size));
  if (!c) {
    errno = ENOMEM;
    return nullptr;
  }
  return payload(c);
}

// A block whose payload starts at a multiple of `align` (a power of two above kAlign).
void *allocate_aligned(Header &h, size_t align, size_t size) {
  if (size > kMaxRequest || align > kMaxRequest) {
    errno = ENOMEM;
    return nullptr;
  }
  // Room for a leading gap of at least kMinChunk that can become a free chunk of its own.
  void *raw = allocate_anywhere(h, size + align + kMinChunk);
  if (!raw) return nullptr;
  Chunk *c = chunk_at(addr(raw) - kChunkHeader);
  uintptr_t aligned = align_up(addr(raw), align);
  if (aligned != addr(raw)) {
    if (aligned - addr(raw) < kMinChunk) aligned += align;
    size_t lead = aligned - addr(raw);
    uint64_t word = c->word;
    Chunk *a = chunk_at(aligned - kChunkHeader);
    a->word = used_word(size_of(word) - lead, kPrevInUse);
    c->word = used_word(lead, word & kPrevInUse);
    h.blocks_in_use += 1;  // the lead is a block until release_chunk frees it
    release_chunk(h, c);
    c = a;
  }
  shrink_chunk(h, c, chunk_size_for(size));
  return payload(c);
}

// malloc's placement: blocks of kLargeBlock bytes or more start at a multiple of kLargeAlign.
inline void *allocate(Header &h, size_t size) {
  if (size >= kLargeBlock) return allocate_aligned(h, kLargeAlign, size);
  return allocate_anywhere(h, size);
}

}  // namespace

void init(uintptr_t base, size_t reserve) {
  if (arena_mapped()) {
    if (base == g_base && reserve == g_reserve) return;
    throw Error("cannot map the c3 heap at " + describe_range(base, reserve) +
                ": it is already mapped at " + describe_range(g_base, g_reserve));
  }
  if (base % kPage || reserve % kPage || reserve < kTopTrimThreshold || reserve > kMaxReserve ||
      base + reserve < base)
    throw Error("cannot map the c3 heap at " + describe_range(base, reserve) +
                ": base and size must be page-aligned, the size between 2 MiB and 128 TiB");
  void *want = reinterpret_cast<void *>(base);
  void *got = mmap(want, reserve, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == MAP_FAILED) {
    int e = errno;
    throw Error("cannot map the c3 heap at " + describe_range(base, reserve) + ": " +
                (e == EEXIST ? std::string("the address range is already in use")
                             : std::string(std::strerror(e))));
  }
  if (got != want) {
    // A kernel without MAP_FIXED_NOREPLACE treats the address as a hint.
    munmap(got, reserve);
    throw Error("cannot map the c3 heap at " + describe_range(base, reserve) +
                ": the kernel placed it at " + hex(addr(got)) + " instead");
  }
  detail::arena_base = base;
  detail::arena_reserve = reserve;  // last: a non-zero reserve means "mapped"
  format(header());
}

bool initialized() { return arena_mapped(); }

void *malloc(size_t size) { return allocate(ready_header(), size); }

void *calloc(size_t n, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(n, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  Header &h = ready_header();
  uintptr_t zero_from = h.resident_end;  // bytes from here on are zero already
  void *p = allocate(h, total);
  if (p && addr(p) < zero_from)
    std::memset(p, 0, std::min<uintptr_t>(total, zero_from - addr(p)));
  return p;
}

void free(void *p) {
  if (!p) return;
  if (!contains(p)) report_corruption("free", p);  // contains() implies the arena is mapped
  Header &h = header();
  release_chunk(h, checked_chunk(h, p, "free"));
}

void *realloc(void *p, size_t size) {
  if (!p) return malloc(size);
  if (!contains(p)) report_corruption("realloc", p);
  Header &h = header();
  Chunk *c = checked_chunk(h, p, "realloc");
  if (size == 0) {  // glibc semantics: free and return NULL
    release_chunk(h, c);
    return nullptr;
  }
  if (size > kMaxRequest) {
    errno = ENOMEM;
    return nullptr;
  }
  size_t need = chunk_size_for(size);
  uint64_t word = c->word;
  size_t have = size_of(word);
  if (need <= have) {
    shrink_chunk(h, c, need);
    return p;
  }
  uintptr_t next = addr(c) + have;
  if (size >= kLargeBlock && addr(p) % kLargeAlign != 0) {
    // A block that becomes large moves to malloc's placement for large blocks.
  } else if (next == h.top) {
    if (need - have <= h.end - h.top) {
      c->word = used_word(need, word & kPrevInUse);
      h.top = addr(c) + need;
      note_top(h);
      h.chunk_bytes_in_use += need - have;
      return p;
    }
  } else {
    Chunk *n = chunk_at(next);
    uint64_t next_word = n->word;
    size_t next_size = size_of(next_word);
    if (tag_of(next_word) == kTagFree && have + next_size >= need) {
      bin_unlink(h, n, next_size);
      n->word = 0;
      size_t total = keep_front(h, c, need, have + next_size, next_word & kReleased);
      c->word = used_word(total, word & kPrevInUse);
      h.chunk_bytes_in_use += total - have;
      return p;
    }
  }
  void *q = allocate(h, size);
  if (!q) return nullptr;
  std::memcpy(q, p, have - kChunkHeader);
  release_chunk(h, c);
  return q;
}

void *memalign(size_t align, size_t size) {
  if (align <= kAlign) return malloc(size);
  if (!is_power_of_two(align)) align = size_t(1) << (log2_floor(align) + 1);
  Header &h = ready_header();
  if (size >= kLargeBlock && align < kLargeAlign) align = kLargeAlign;
  return allocate_aligned(h, align, size);
}

size_t usable_size(const void *p) {
  if (!p) return 0;
  if (!contains(p)) report_corruption("malloc_usable_size", p);
  const Header &h = header();
  return size_of(checked_chunk(h, p, "malloc_usable_size")->word) - kChunkHeader;
}

std::vector<Extent> live_extents() {
  std::vector<Extent> out;
  if (!arena_mapped()) return out;
  const Header &h = header();
  if (h.magic != kMagic) throw Error("cannot save the c3 heap: its header is damaged");
  auto add = [&out](uintptr_t a, size_t n) {
    if (!out.empty() && out.back().addr + out.back().size == a)
      out.back().size += n;
    else
      out.push_back({a, n});
  };
  add(g_base, h.first_chunk - g_base);
  for (uintptr_t a = h.first_chunk; a < h.top;) {
    uint64_t word = chunk_at(a)->word;
    size_t size = size_of(word);
    uint64_t tag = tag_of(word);
    if ((tag != kTagUsed && tag != kTagFree) || size < kMinChunk || size > h.top - a)
      throw Error("cannot save the c3 heap: damaged block header at " + hex(a));
    if (tag == kTagFree && size > kFreeSavedWhole)
      add(a, kMinChunk);  // header and links; the interior is garbage
    else
      add(a, size);
    a += size;
  }
  return out;
}

void reset_for_restore() {
  if (!arena_mapped()) init(kDefaultBase, kDefaultReserve);
  // Mapping over our own range drops every page at once; the range then reads as zero.
  if (!zero_pages(g_base, g_base + g_reserve))
    throw Error("cannot reset the c3 heap at " + describe_range(g_base, g_reserve) + ": " +
                std::strerror(errno));
}

Stats stats() {
  if (!arena_mapped() || header().magic != kMagic) return {0, 0, 0};
  const Header &h = header();
  return {h.chunk_bytes_in_use - h.blocks_in_use * kChunkHeader, h.high_water, h.blocks_in_use};
}

void verify() {
  if (!arena_mapped()) throw Error("c3 heap: not initialized");
  const Header &h = header();
  auto fail = [](const std::string &why) { throw Error("c3 heap is inconsistent: " + why); };
  if (h.magic != kMagic || h.version != kVersion || h.header_bytes != sizeof(Header))
    fail("bad header magic/version (not a heap of this c3 build)");
  if (h.base != g_base || h.reserve != g_reserve || h.end != g_base + g_reserve)
    fail("header describes the range " + describe_range(h.base, h.reserve) +
         ", this process maps " + describe_range(g_base, g_reserve));
  if (h.first_chunk != g_base + kHeaderSpace || h.top < h.first_chunk || h.top > h.end ||
      h.resident_end < h.top || h.resident_end > h.end || h.high_water < h.top - g_base)
    fail("bad top/resident/high-water pointers");

  size_t used_bytes = 0, used_blocks = 0, free_blocks = 0;
  bool prev_in_use = true;
  for (uintptr_t a = h.first_chunk; a < h.top;) {
    const Chunk *c = chunk_at(a);
    uint64_t word = c->word;
    size_t size = size_of(word);
    uint64_t tag = tag_of(word);
    if ((tag != kTagUsed && tag != kTagFree) || size < kMinChunk || size % kAlign ||
        size > h.top - a)
      fail("bad block header at " + hex(a));
    if (bool(word & kPrevInUse) != prev_in_use) fail("wrong prev-in-use bit at " + hex(a));
    if (!prev_in_use && c->prev_size == 0) fail("missing boundary tag at " + hex(a));
    if (tag == kTagUsed) {
      if (!(word & kInUse)) fail("in-use tag without in-use bit at " + hex(a));
      used_bytes += size;
      ++used_blocks;
    } else {
      if (word & kInUse) fail("free tag with in-use bit at " + hex(a));
      if (!prev_in_use) fail("two adjacent free blocks at " + hex(a));
      if (a + size == h.top) fail("free block next to top at " + hex(a));
      if (chunk_at(a + size)->prev_size != size) fail("bad boundary tag after " + hex(a));
      ++free_blocks;
    }
    prev_in_use = tag == kTagUsed;
    a += size;
  }
  if (used_bytes != h.chunk_bytes_in_use || used_blocks != h.blocks_in_use)
    fail("statistics do not match the blocks");

  size_t binned = 0;
  uint64_t nonempty = 0;
  for (size_t b = 0; b < kBins; ++b) {
    bool bit = (h.bitmap[b / 64] >> (b % 64)) & 1;
    if (bit != (h.bins[b] != nullptr)) fail("bitmap disagrees with bin " + std::to_string(b));
    if (h.bitmap[b / 64]) nonempty |= uint64_t(1) << (b / 64);
    const Chunk *prev = nullptr;
    for (const Chunk *c = h.bins[b]; c; prev = c, c = c->next_free) {
      if (addr(c) < h.first_chunk || addr(c) >= h.top || tag_of(c->word) != kTagFree ||
          bin_of(size_of(c->word)) != b || c->prev_free != prev)
        fail("bad free list entry " + hex(addr(c)) + " in bin " + std::to_string(b));
      if (++binned > free_blocks) fail("free lists hold more blocks than the heap");
    }
  }
  if (nonempty != h.nonempty_words) fail("bitmap summary is wrong");
  if (binned != free_blocks) fail("free blocks missing from the free lists");
}

}  // namespace c3::heap
