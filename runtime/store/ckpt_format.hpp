// The checkpoint file format, shared by the writer (ckpt_file.cpp) and the reader
// (ckpt_reader.cpp). Layout (all integers little-endian):
//
//   file header   magic "C3CKPT\r\n", u32 format version, u32 header length, u32 rank,
//                 u32 nranks, u64 checkpoint, u64 unix time [ns], u32 build-id length,
//                 build-id bytes, zero padding, u32 CRC32C of everything before it.
//                 The header length is a multiple of 8.
//   section       u32 kind, u32 reserved (0), u64 payload length, u32 payload CRC32C,
//                 u32 CRC32C of the preceding 20 header bytes; payload; zero padding to 8.
//   END section   kind END, payload {u64 number of sections before it, u64 its own offset};
//                 it must end the file.
//
// Every byte of a file is covered by a checksum or must be zero, so any corruption is caught
// before a restart lets the program run (docs/architecture.md, "Restart").
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the checkpoint format is little-endian");

namespace c3::format {

inline constexpr char kMagic[8] = {'C', '3', 'C', 'K', 'P', 'T', '\r', '\n'};
inline constexpr uint32_t kFormatVersion = 2;  // 2: memory images carry a data offset
inline constexpr size_t kFixedHeaderBytes = 44;  // up to and including the build-id length
inline constexpr size_t kMaxBuildIdBytes = 255;
inline constexpr size_t kSectionHeaderBytes = 24;
inline constexpr size_t kSectionCrcCovered = 20;
inline constexpr size_t kEndPayloadBytes = 16;

constexpr uint64_t align8(uint64_t n) { return (n + 7) & ~uint64_t(7); }

inline void put_u32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }
inline void put_u64(uint8_t *p, uint64_t v) { std::memcpy(p, &v, 8); }
inline uint32_t get_u32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t get_u64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

constexpr size_t header_length_for(size_t build_id_bytes) {
  return align8(kFixedHeaderBytes + build_id_bytes + 4);
}

}  // namespace c3::format
