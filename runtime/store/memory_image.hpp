// Section payload shared by GLOBALS, HEAP and FRAMES: a list of (address, bytes) pieces.
//
//   u64 count | count x { u64 address, u64 size } | bytes of piece 0 | bytes of piece 1 | ...
//
// Written straight from application memory (iovecs, no copy); read back as views into the
// checkpoint reader's copy of the payload, or (the heap at a restart) straight into place.
#pragma once
#include <sys/uio.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "store/ckpt_file.hpp"

namespace c3 {

class MemoryImageBuilder {
 public:
  void add(const void *address, uint64_t size);
  // The payload as iovecs; valid while this builder lives and is not modified.
  const std::vector<iovec> &pieces();
  uint64_t data_bytes() const { return data_bytes_; }
  size_t count() const { return table_.size() / 2; }

 private:
  std::vector<uint64_t> table_;   // address/size pairs
  std::vector<uint64_t> header_;  // count + table_, built by pieces()
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
