#include "store/memory_image.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "support/error.hpp"

namespace c3 {

namespace {

constexpr uint64_t kPage = 4096;
const uint8_t kZeroPage[kPage] = {};

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
  const uint64_t lo = reinterpret_cast<uintptr_t>(address) & ~(kPage - 1);
  const uint64_t hi = (reinterpret_cast<uintptr_t>(address) + size + kPage - 1) & ~(kPage - 1);
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
    const uint64_t n = std::min(left, kPage);
    pieces_.push_back(iovec{const_cast<uint8_t *>(kZeroPage), size_t(n)});
    left -= n;
  }
  pieces_.insert(pieces_.end(), data_.begin(), data_.end());
  return pieces_;
}

std::vector<MemoryPiece> decode_memory_image(const SectionView &section, const std::string &path) {
  auto corrupt = [&](const std::string &why) -> CorruptCheckpoint {
    return CorruptCheckpoint(path + ": section " + section_name(section.kind) + ": " + why);
  };
  if (section.size < 8) throw corrupt("too short for its piece count");
  uint64_t count;
  std::memcpy(&count, section.data, 8);
  if (count > (section.size - 16) / 16)
    throw corrupt("piece count " + std::to_string(count) + " exceeds the section");
  uint64_t offset = 0;
  std::memcpy(&offset, section.data + 8 + count * 16, 8);
  if (offset < header_bytes(count) || offset > section.size)
    throw corrupt("data offset " + std::to_string(offset) + " outside the section");
  for (uint64_t i = header_bytes(count); i < offset; ++i)
    if (section.data[i] != 0) throw corrupt("non-zero padding before the data");
  std::vector<MemoryPiece> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t pair[2];
    std::memcpy(pair, section.data + 8 + i * 16, 16);
    if (pair[1] > section.size - offset)
      throw corrupt("piece " + std::to_string(i) + " runs past the end");
    out.push_back(MemoryPiece{uintptr_t(pair[0]), pair[1], section.data + offset});
    offset += pair[1];
  }
  if (offset != section.size) throw corrupt("trailing bytes after the last piece");
  return out;
}

void read_memory_image_in_place(const CheckpointReader &reader, SectionKind kind,
                                const std::function<void(const std::vector<MemoryPiece> &)> &check) {
  CheckpointReader::Stream in = reader.stream(kind);
  auto corrupt = [&](const std::string &why) { return CorruptCheckpoint(in.where() + ": " + why); };
  if (in.left() < 16) throw corrupt("too short for its piece count");
  uint64_t count = 0;
  in.read(&count, 8);
  if (count > (in.left() - 8) / 16)
    throw corrupt("piece count " + std::to_string(count) + " exceeds the section");
  std::vector<uint64_t> table(size_t(count) * 2 + 1);
  in.read(table.data(), count * 16 + 8);
  const uint64_t offset = table.back();
  const uint64_t padding = offset - header_bytes(count);
  if (offset < header_bytes(count) || padding > in.left())
    throw corrupt("data offset " + std::to_string(offset) + " outside the section");
  std::vector<uint8_t> zeros(static_cast<size_t>(padding));
  in.read(zeros.data(), padding);
  if (std::any_of(zeros.begin(), zeros.end(), [](uint8_t b) { return b != 0; }))
    throw corrupt("non-zero padding before the data");
  std::vector<MemoryPiece> pieces;
  pieces.reserve(size_t(count));
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t size = table[size_t(2 * i + 1)];
    if (size > in.left() - bytes) throw corrupt("piece " + std::to_string(i) + " runs past the end");
    bytes += size;
    pieces.push_back(MemoryPiece{uintptr_t(table[size_t(2 * i)]), size, nullptr});
  }
  if (bytes != in.left()) throw corrupt("trailing bytes after the last piece");
  try {
    check(pieces);
  } catch (const Error &) {
    // A damaged table looks like a misfit: the checksum tells which it is.
    std::vector<uint8_t> buffer(size_t(1) << 20);
    while (in.left() > 0) in.read(buffer.data(), std::min<uint64_t>(in.left(), buffer.size()));
    in.finish();
    throw;
  }
  for (const MemoryPiece &p : pieces) in.place(reinterpret_cast<void *>(p.address), p.size);
  in.finish();
}

}  // namespace c3
