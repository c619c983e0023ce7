#include "store/memory_image.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "support/error.hpp"

namespace c3 {

namespace {

const uint8_t kZeroPage[kPageBytes] = {};

uint64_t header_bytes(uint64_t count) { return 8 + 16 * count + 8; }

}  // namespace

void MemoryImageBuilder::add(const void *address, uint64_t size) {
  table_.push_back(reinterpret_cast<uintptr_t>(address));
  table_.push_back(size);
  if (size) data_.push_back(iovec{const_cast<void *>(address), size_t(size)});
  data_bytes_ += size;
}

void MemoryImageBuilder::add_pages(const void *address, uint64_t size) {
  if (size == 0) return;
  const uint64_t lo = reinterpret_cast<uintptr_t>(address) & ~(kPageBytes - 1);
  const uint64_t hi = (reinterpret_cast<uintptr_t>(address) + size + kPageBytes - 1) & ~(kPageBytes - 1);
  if (!table_.empty() && table_[table_.size() - 2] + table_.back() >= lo) {
    const uint64_t end = std::max(table_[table_.size() - 2] + table_.back(), hi);
    const uint64_t grown = end - (table_[table_.size() - 2] + table_.back());
    table_.back() += grown;
    data_.back().iov_len += size_t(grown);
    data_bytes_ += grown;
    return;
  }
  add(reinterpret_cast<const void *>(lo), hi - lo);
}

const std::vector<iovec> &MemoryImageBuilder::pieces(uint64_t payload_offset, uint64_t align) {
  const uint64_t count = table_.size() / 2;
  const uint64_t head = header_bytes(count);
  const uint64_t data_start = payload_offset + head;
  const uint64_t padding = (align - data_start % align) % align;
  header_.assign(1, count);
  header_.insert(header_.end(), table_.begin(), table_.end());
  header_.push_back(head + padding);
  pieces_.assign(1, iovec{header_.data(), header_.size() * sizeof(uint64_t)});
  for (uint64_t left = padding; left > 0;) {
    const uint64_t n = std::min(left, kPageBytes);
    pieces_.push_back(iovec{const_cast<uint8_t *>(kZeroPage), size_t(n)});
    left -= n;
  }
  pieces_.insert(pieces_.end(), data_.begin(), data_.end());
  return pieces_;
}

namespace {

using Corrupt = std::function<CorruptCheckpoint(const std::string &)>;

// What both readers check of a payload of `size` bytes whose first 8 hold `count`.
void check_count(uint64_t count, uint64_t size, const Corrupt &corrupt) {
  if (size < 16) throw corrupt("too short for its piece count");
  if (count > (size - 16) / 16)
    throw corrupt("piece count " + std::to_string(count) + " exceeds the section");
}

void check_data_offset(uint64_t count, uint64_t offset, uint64_t size, const Corrupt &corrupt) {
  if (offset < header_bytes(count) || offset > size)
    throw corrupt("data offset " + std::to_string(offset) + " outside the section");
}

// The pieces `pairs` (address, size; `count` of them) describe, bytes null, checked against the
// `data_bytes` that follow the header.
std::vector<MemoryPiece> pieces_of(const uint64_t *pairs, uint64_t count, uint64_t data_bytes,
                                   const Corrupt &corrupt) {
  std::vector<MemoryPiece> out;
  out.reserve(size_t(count));
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t size = pairs[2 * i + 1];
    if (size > data_bytes - bytes) throw corrupt("piece " + std::to_string(i) + " runs past the end");
    bytes += size;
    out.push_back(MemoryPiece{uintptr_t(pairs[2 * i]), size, nullptr});
  }
  if (bytes != data_bytes) throw corrupt("trailing bytes after the last piece");
  return out;
}

}  // namespace

std::vector<MemoryPiece> decode_memory_image(const SectionView &section, const std::string &path) {
  const Corrupt corrupt = [&](const std::string &why) {
    return CorruptCheckpoint(path + ": section " + section_name(section.kind) + ": " + why);
  };
  uint64_t count = 0;
  if (section.size >= 8) std::memcpy(&count, section.data, 8);
  check_count(count, section.size, corrupt);
  std::vector<uint64_t> table(size_t(count) * 2 + 1);
  std::memcpy(table.data(), section.data + 8, table.size() * 8);
  const uint64_t offset = table.back();
  check_data_offset(count, offset, section.size, corrupt);
  if (std::any_of(section.data + header_bytes(count), section.data + offset,
                  [](uint8_t b) { return b != 0; }))
    throw corrupt("non-zero padding before the data");
  std::vector<MemoryPiece> out = pieces_of(table.data(), count, section.size - offset, corrupt);
  const uint8_t *bytes = section.data + offset;
  for (MemoryPiece &p : out) {
    p.bytes = bytes;
    bytes += p.size;
  }
  return out;
}

void read_memory_image_in_place(const CheckpointReader &reader, SectionKind kind,
                                const std::function<void(const std::vector<MemoryPiece> &)> &check) {
  CheckpointReader::Stream in = reader.stream(kind);
  const Corrupt corrupt = [&](const std::string &why) {
    return CorruptCheckpoint(in.where() + ": " + why);
  };
  const uint64_t size = in.left();
  uint64_t count = 0;
  if (size >= 8) in.read(&count, 8);
  check_count(count, size, corrupt);
  std::vector<uint64_t> table(size_t(count) * 2 + 1);
  in.read(table.data(), table.size() * 8);
  const uint64_t offset = table.back();
  check_data_offset(count, offset, size, corrupt);
  std::vector<uint8_t> padding(static_cast<size_t>(offset - header_bytes(count)));
  in.read(padding.data(), padding.size());
  if (std::any_of(padding.begin(), padding.end(), [](uint8_t b) { return b != 0; }))
    throw corrupt("non-zero padding before the data");
  const std::vector<MemoryPiece> pieces = pieces_of(table.data(), count, in.left(), corrupt);
  try {
    check(pieces);
  } catch (const Error &) {
    in.drain();  // a damaged table looks like a misfit: the checksum tells which it is
    throw;
  }
  for (const MemoryPiece &p : pieces) in.place(reinterpret_cast<void *>(p.address), p.size);
  in.finish();
}

}  // namespace c3
