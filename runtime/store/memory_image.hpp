// Section payload shared by GLOBALS, HEAP and FRAMES: a list of (address, bytes) pieces.
//
//   u64 count | count x { u64 address, u64 size } | u64 data offset | zero padding |
//   bytes of piece 0 | bytes of piece 1 | ...
//
// The data offset (from the payload's start) lets the writer place the bytes at a page boundary
// of the file, so that whole pages saved from whole pages of memory can be mapped back (the
// heap at a restart) instead of copied. Written straight from application memory (iovecs, no
// copy); read back as views into the checkpoint reader's copy of the payload, or straight into
// place.
#pragma once
#include <sys/uio.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "store/ckpt_file.hpp"

namespace c3 {

// The page size of add_pages and of the heap's placement in the file (pieces(..., kPageBytes)).
constexpr uint64_t kPageBytes = 4096;

class MemoryImageBuilder {
 public:
  void add(const void *address, uint64_t size);
  // The whole pages [address, address + size) touches; merged with the previous piece when
  // they overlap or meet (pieces are added in ascending order).
  void add_pages(const void *address, uint64_t size);
  // The payload as iovecs; valid while this builder lives and is not modified. With
  // `payload_offset`, the file offset where the payload will start, the bytes start at a
  // multiple of `align` in the file.
  const std::vector<iovec> &pieces(uint64_t payload_offset = 0, uint64_t align = 8);
  uint64_t data_bytes() const { return data_bytes_; }
  size_t count() const { return table_.size() / 2; }

 private:
  std::vector<uint64_t> table_;   // address/size pairs
  std::vector<uint64_t> header_;  // count + table_ + data offset, built by pieces()
  std::vector<iovec> data_;
  std::vector<iovec> pieces_;
  uint64_t data_bytes_ = 0;
};

struct MemoryPiece {
  uintptr_t address;
  uint64_t size;
  const uint8_t *bytes;  // into the checkpoint reader's payload (null: not read yet)
};

// Decodes and bounds-checks a payload; throws CorruptCheckpoint naming `path` and the section.
std::vector<MemoryPiece> decode_memory_image(const SectionView &section, const std::string &path);

// Reads the section's pieces straight to their addresses, checksumming as it reads. `check` is
// shown the pieces (bytes null) before any byte is written and throws to refuse them. Throws
// CorruptCheckpoint when the payload is malformed or fails its checksum; pieces may have been
// written by then, so the caller must be able to discard them (a restart resets the arena).
void read_memory_image_in_place(const CheckpointReader &reader, SectionKind kind,
                                const std::function<void(const std::vector<MemoryPiece> &)> &check);

}  // namespace c3
