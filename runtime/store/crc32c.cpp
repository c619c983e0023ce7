// CRC32C (Castagnoli, reflected polynomial 0x82F63B78).
//
// Both implementations work on the "raw" register (no pre/post inversion); the public function
// adds the inversions so a CRC can be extended piece by piece: crc32c(crc32c(0, a), b) ==
// crc32c(0, a ++ b).
#include "store/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace c3 {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;

// Slicing-by-8 tables: slice[k][b] is the CRC of byte b followed by k zero bytes.
struct SliceTables {
  uint32_t slice[8][256];
};

constexpr SliceTables make_slice_tables() {
  SliceTables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kPolynomial : 0u);
    t.slice[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k)
    for (uint32_t b = 0; b < 256; ++b) {
      const uint32_t prev = t.slice[k - 1][b];
      t.slice[k][b] = (prev >> 8) ^ t.slice[0][prev & 0xffu];
    }
  return t;
}

constexpr SliceTables kSlice = make_slice_tables();

uint32_t software_raw(uint32_t crc, const uint8_t *p, size_t len) {
  const auto &s = kSlice.slice;
  while (len >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);  // x86-64 is little-endian: byte 0 is the low byte
    word ^= crc;
    crc = s[7][word & 0xff] ^ s[6][(word >> 8) & 0xff] ^ s[5][(word >> 16) & 0xff] ^
          s[4][(word >> 24) & 0xff] ^ s[3][(word >> 32) & 0xff] ^ s[2][(word >> 40) & 0xff] ^
          s[1][(word >> 48) & 0xff] ^ s[0][word >> 56];
    p += 8;
    len -= 8;
  }
  while (len--) crc = (crc >> 8) ^ s[0][(crc ^ *p++) & 0xffu];
  return crc;
}

#if defined(__x86_64__)

__attribute__((target("sse4.2"))) uint32_t hardware_raw_serial(uint32_t crc, const uint8_t *p,
                                                                size_t len) {
  while (len > 0 && (reinterpret_cast<uintptr_t>(p) & 7u) != 0) {
    crc = _mm_crc32_u8(crc, *p++);
    --len;
  }
  uint64_t wide = crc;
  while (len >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    wide = _mm_crc32_u64(wide, word);
    p += 8;
    len -= 8;
  }
  crc = static_cast<uint32_t>(wide);
  while (len--) crc = _mm_crc32_u8(crc, *p++);
  return crc;
}

// The crc32 instruction has a latency of 3 cycles but a throughput of 1 per cycle, so three
// independent streams over adjacent blocks run about three times faster than one. The three
// partial CRCs are joined with a table that advances a register over one block of zero bytes.
// Several block sizes keep short buffers (a heap of 4 KiB blocks, say) on the fast path too.
constexpr size_t kBlockSizes[] = {4096, 1024, 256};
constexpr size_t kBlockKinds = sizeof kBlockSizes / sizeof *kBlockSizes;

struct ShiftTables {
  // shift[j][v] = register (v << 8j) advanced over one block of zero bytes (a linear map over
  // GF(2), so a register is advanced by XOR-ing the entries of its four bytes).
  uint32_t shift[4][256];
};

const ShiftTables *shift_tables() {
  static const auto tables = [] {
    static const uint8_t zeros[kBlockSizes[0]] = {};
    std::array<ShiftTables, kBlockKinds> all{};
    for (size_t k = 0; k < kBlockKinds; ++k) {
      uint32_t basis[32];
      for (int bit = 0; bit < 32; ++bit)
        basis[bit] = hardware_raw_serial(1u << bit, zeros, kBlockSizes[k]);
      for (int j = 0; j < 4; ++j)
        for (uint32_t v = 0; v < 256; ++v) {
          uint32_t out = 0;
          for (int bit = 0; bit < 8; ++bit)
            if (v & (1u << bit)) out ^= basis[8 * j + bit];
          all[k].shift[j][v] = out;
        }
    }
    return all;
  }();
  return tables.data();
}

inline uint32_t shift_over_block(const ShiftTables &t, uint32_t crc) {
  return t.shift[0][crc & 0xff] ^ t.shift[1][(crc >> 8) & 0xff] ^ t.shift[2][(crc >> 16) & 0xff] ^
         t.shift[3][crc >> 24];
}

// Consumes as many 3 x Block runs as fit; p must be 8-byte aligned.
template <size_t Block>
__attribute__((target("sse4.2"))) uint32_t hardware_raw_interleaved(uint32_t crc,
                                                                     const uint8_t *&p,
                                                                     size_t &len,
                                                                     const ShiftTables &tables) {
  while (len >= 3 * Block) {
    uint64_t a = crc, b = 0, c = 0;
    for (size_t i = 0; i < Block; i += 8) {
      uint64_t wa, wb, wc;
      std::memcpy(&wa, p + i, 8);
      std::memcpy(&wb, p + Block + i, 8);
      std::memcpy(&wc, p + 2 * Block + i, 8);
      a = _mm_crc32_u64(a, wa);
      b = _mm_crc32_u64(b, wb);
      c = _mm_crc32_u64(c, wc);
    }
    // raw(s, A B C) = shift(shift(raw(s, A)) ^ raw(0, B)) ^ raw(0, C)
    crc = shift_over_block(tables, shift_over_block(tables, static_cast<uint32_t>(a)) ^
                                       static_cast<uint32_t>(b)) ^
          static_cast<uint32_t>(c);
    p += 3 * Block;
    len -= 3 * Block;
  }
  return crc;
}

__attribute__((target("sse4.2"))) uint32_t hardware_raw(uint32_t crc, const uint8_t *p,
                                                         size_t len) {
  if (len < 3 * kBlockSizes[kBlockKinds - 1]) return hardware_raw_serial(crc, p, len);
  // Align first so the three streams read aligned words.
  const size_t head = (8 - (reinterpret_cast<uintptr_t>(p) & 7u)) & 7u;
  crc = hardware_raw_serial(crc, p, head);
  p += head;
  len -= head;
  const ShiftTables *tables = shift_tables();
  crc = hardware_raw_interleaved<kBlockSizes[0]>(crc, p, len, tables[0]);
  crc = hardware_raw_interleaved<kBlockSizes[1]>(crc, p, len, tables[1]);
  crc = hardware_raw_interleaved<kBlockSizes[2]>(crc, p, len, tables[2]);
  return hardware_raw_serial(crc, p, len);
}

#endif  // __x86_64__

}  // namespace

namespace detail {

uint32_t crc32c_software(uint32_t crc, const void *data, size_t len) {
  return ~software_raw(~crc, static_cast<const uint8_t *>(data), len);
}

bool crc32c_hardware_available() {
#if defined(__x86_64__)
  static const bool available = __builtin_cpu_supports("sse4.2");
  return available;
#else
  return false;
#endif
}

uint32_t crc32c_hardware(uint32_t crc, const void *data, size_t len) {
#if defined(__x86_64__)
  return ~hardware_raw(~crc, static_cast<const uint8_t *>(data), len);
#else
  return crc32c_software(crc, data, len);
#endif
}

}  // namespace detail

uint32_t crc32c(uint32_t crc, const void *data, size_t len) {
  return detail::crc32c_hardware_available() ? detail::crc32c_hardware(crc, data, len)
                                             : detail::crc32c_software(crc, data, len);
}

}  // namespace c3
