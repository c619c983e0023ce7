// Checkpoint file reader (format: ckpt_format.hpp). Verify::All maps the file and checks every
// byte at once (the tools, small files). Verify::Structure reads only the file header and the
// section headers at once, and each payload when it is asked for, with pread: a restart maps
// the heap's pages from the file at their place in the arena and checksums the file piece by
// piece through a buffer that stays in the cache, so the file is neither mapped beside the heap
// (twice the memory) nor read twice, and a page costs the process nothing until it is touched.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "store/ckpt_file.hpp"
#include "store/ckpt_format.hpp"
#include "store/crc32c.hpp"
#include "support/error.hpp"
#include "support/own_descriptors.hpp"

namespace c3 {

using namespace format;

namespace {

// Bytes read per pread and checksummed right after it (fits the caches the checksum reads).
constexpr uint64_t kChunkBytes = uint64_t(1) << 20;
// Bytes read per pread into the small buffer of bytes that are only checksummed (fits the
// second-level cache).
constexpr uint64_t kChecksumPiece = uint64_t(256) << 10;

}  // namespace

struct CheckpointReader::Impl {
  struct Entry {
    uint32_t kind;
    uint64_t offset;  // of the payload
    uint64_t length;
    uint32_t crc;
    bool verified;
    std::unique_ptr<uint8_t[]> bytes;  // Verify::Structure: the payload once read
  };

  std::string path;
  Verify verify = Verify::All;
  int fd = -1;                    // Verify::Structure
  const uint8_t *map = nullptr;   // Verify::All
  uint64_t size = 0;
  FileHeader header;
  std::vector<Entry> entries;
  std::vector<SectionView> views;  // entries' payloads; data is null until read
  bool all_views = false;          // every view filled (sections())
  int mappings = 0;                // pieces Stream::place mapped from the file
  std::unique_ptr<uint8_t[]> checksum_buffer;  // Stream::skim's (kChecksumPiece bytes)

  ~Impl() {
    if (map != nullptr) ::munmap(const_cast<uint8_t *>(map), size);
    if (fd >= 0) ::close(fd);
  }

  [[noreturn]] void corrupt(const std::string &what) const {
    throw CorruptCheckpoint(path + ": " + what);
  }

  static std::string name_of(uint32_t kind) { return std::string("section ") + section_name(kind); }

  // [offset, offset + n) of the file into `to`: from the mapping or by pread.
  void read_at(uint64_t offset, void *to, uint64_t n) const {
    if (map != nullptr) {
      std::memcpy(to, map + offset, n);
      return;
    }
    auto *out = static_cast<uint8_t *>(to);
    while (n > 0) {
      const ssize_t got = ::pread(fd, out, std::min<uint64_t>(n, uint64_t(1) << 30), off_t(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw_sys_error("read " + path);
      if (got == 0) corrupt("truncated while being read (the file shrank)");
      out += got;
      offset += uint64_t(got);
      n -= uint64_t(got);
    }
  }

  void open_file() {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_sys_error("open " + path);
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw_sys_error("stat " + path);
    if (!S_ISREG(st.st_mode)) throw Error(path + ": not a regular file");
    size = uint64_t(st.st_size);
    if (size == 0) corrupt("empty file (truncated inside the file header)");
    if (verify == Verify::Structure) {
      // Kept open while the reader lives, which at a restart is while the program's own
      // descriptors go back to their numbers: out of their way.
      fd = move_to_own_range(fd);
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
      return;
    }
    // Everything is read during verification, so populate the mapping in one go.
    void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) throw_sys_error("mmap " + path);
    map = static_cast<const uint8_t *>(p);
    ::close(fd);
    fd = -1;
  }

  void verify_header() {
    if (size < kFixedHeaderBytes) corrupt("truncated inside the file header");
    uint8_t bytes[header_length_for(kMaxBuildIdBytes)];
    const uint64_t available = std::min<uint64_t>(size, sizeof bytes);
    read_at(0, bytes, available);
    if (std::memcmp(bytes, kMagic, 8) != 0) corrupt("not a c3 checkpoint file (bad magic)");
    const uint32_t length = get_u32(bytes + 12);
    if (length < header_length_for(0) || length % 8 != 0 ||
        length > header_length_for(kMaxBuildIdBytes))
      corrupt("file header: bad header length " + std::to_string(length));
    if (length > size) corrupt("truncated inside the file header");
    if (crc32c(0, bytes, length - 4) != get_u32(bytes + length - 4))
      corrupt("file header: checksum mismatch");
    header.format_version = get_u32(bytes + 8);
    if (header.format_version != kFormatVersion)
      corrupt("unsupported format version " + std::to_string(header.format_version));
    const uint32_t build_id_bytes = get_u32(bytes + 40);
    if (build_id_bytes > kMaxBuildIdBytes || header_length_for(build_id_bytes) != length)
      corrupt("file header: build-id length " + std::to_string(build_id_bytes) +
              " does not match header length " + std::to_string(length));
    header.rank = get_u32(bytes + 16);
    header.nranks = get_u32(bytes + 20);
    if (header.nranks == 0 || header.rank >= header.nranks)
      corrupt("file header: rank " + std::to_string(header.rank) + " out of range for " +
              std::to_string(header.nranks) + " ranks");
    header.checkpoint = get_u64(bytes + 24);
    header.unix_time_ns = get_u64(bytes + 32);
    header.build_id.assign(reinterpret_cast<const char *>(bytes + kFixedHeaderBytes),
                           build_id_bytes);
  }

  void walk_sections() {
    uint64_t off = 0;
    {
      uint8_t length[4];
      read_at(12, length, 4);
      off = get_u32(length);
    }
    std::string previous = "file header";
    for (;;) {
      const uint64_t remaining = size - off;
      if (remaining < kSectionHeaderBytes)
        corrupt("truncated after " + previous + " (expected END)");
      uint8_t h[kSectionHeaderBytes];
      read_at(off, h, kSectionHeaderBytes);
      if (crc32c(0, h, kSectionCrcCovered) != get_u32(h + 20))
        corrupt("section header after " + previous + ": checksum mismatch");
      const uint32_t kind = get_u32(h);
      const std::string name = name_of(kind);
      const uint64_t length = get_u64(h + 8);
      const uint64_t available = remaining - kSectionHeaderBytes;
      if (length > available)
        corrupt(name + ": truncated (" + std::to_string(available) + " of " +
                std::to_string(length) + " payload bytes present)");
      Entry e{kind, off + kSectionHeaderBytes, length, get_u32(h + 16), false, nullptr};
      const uint64_t padded = align8(length);
      if (map != nullptr) {
        if (crc32c(0, map + e.offset, length) != e.crc) corrupt(name + ": checksum mismatch");
        if (padded > available) corrupt(name + ": truncated inside its padding");
        for (uint64_t i = length; i < padded; ++i)
          if (map[e.offset + i] != 0) corrupt(name + ": non-zero padding");
        e.verified = true;
      }
      if (padded > available) corrupt(name + ": truncated inside its padding");
      if (kind == static_cast<uint32_t>(SectionKind::End)) {
        if (length != kEndPayloadBytes) corrupt("END record: bad length");
        uint8_t payload[kEndPayloadBytes];
        read_at(e.offset, payload, kEndPayloadBytes);
        if (map == nullptr && crc32c(0, payload, kEndPayloadBytes) != e.crc)
          corrupt(name + ": checksum mismatch");
        if (get_u64(payload) != entries.size() || get_u64(payload + 8) != off)
          corrupt("END record does not match the sections found (sections were lost)");
        if (off + kSectionHeaderBytes + padded != size)
          corrupt("unexpected bytes after the END record");
        break;
      }
      // Unknown kinds are kept, not rejected: a newer writer may add sections.
      entries.push_back(std::move(e));
      off += kSectionHeaderBytes + padded;
      previous = name;
    }
    views.resize(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      views[i] = SectionView{entries[i].kind, nullptr, entries[i].length};
      if (map != nullptr) views[i].data = map + entries[i].offset;
    }
    all_views = map != nullptr;
  }

  size_t index_of(SectionKind kind) const {
    for (size_t i = 0; i < entries.size(); ++i)
      if (entries[i].kind == static_cast<uint32_t>(kind)) return i;
    return entries.size();
  }

  // Reads entry i's payload into memory (once), verified.
  const SectionView &load(size_t i) {
    SectionView &v = views[i];
    if (v.data != nullptr) return v;
    Entry &e = entries[i];
    const uint64_t padded = align8(e.length);
    e.bytes = std::make_unique<uint8_t[]>(std::max<uint64_t>(padded, 8));
    read_at(e.offset, e.bytes.get(), padded);
    if (crc32c(0, e.bytes.get(), e.length) != e.crc) corrupt(name_of(e.kind) + ": checksum mismatch");
    for (uint64_t k = e.length; k < padded; ++k)
      if (e.bytes[k] != 0) corrupt(name_of(e.kind) + ": non-zero padding");
    e.verified = true;
    v.data = e.bytes.get();
    return v;
  }
};

CheckpointReader::CheckpointReader(const std::string &path, Verify verify)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->verify = verify;
  impl_->open_file();
  impl_->verify_header();
  impl_->walk_sections();
}

CheckpointReader::~CheckpointReader() = default;

const FileHeader &CheckpointReader::header() const { return impl_->header; }

const std::vector<SectionView> &CheckpointReader::sections() const {
  if (!impl_->all_views) {
    for (size_t i = 0; i < impl_->entries.size(); ++i) impl_->load(i);
    impl_->all_views = true;
  }
  return impl_->views;
}

const SectionView *CheckpointReader::find(SectionKind kind) const {
  const size_t i = impl_->index_of(kind);
  return i == impl_->entries.size() ? nullptr : &impl_->load(i);
}

const SectionView &CheckpointReader::section(SectionKind kind) const {
  if (const SectionView *s = find(kind)) return *s;
  impl_->corrupt("missing " + Impl::name_of(static_cast<uint32_t>(kind)));
}

CheckpointReader::Stream CheckpointReader::stream(SectionKind kind) const {
  const size_t i = impl_->index_of(kind);
  if (i == impl_->entries.size())
    impl_->corrupt("missing " + Impl::name_of(static_cast<uint32_t>(kind)));
  return Stream(this, i);
}

void CheckpointReader::verify_rest() const {
  for (size_t i = 0; i < impl_->entries.size(); ++i)
    if (!impl_->entries[i].verified) Stream(this, i).drain();
}

const std::string &CheckpointReader::path() const { return impl_->path; }

uint64_t CheckpointReader::file_size() const { return impl_->size; }

CheckpointReader::Stream::Stream(const CheckpointReader *reader, size_t index)
    : reader_(reader), index_(index), length_(reader->impl_->entries[index].length) {}

std::string CheckpointReader::Stream::where() const {
  return reader_->impl_->path + ": " + Impl::name_of(reader_->impl_->entries[index_].kind);
}

void CheckpointReader::Stream::read(void *to, uint64_t n) {
  const Impl &impl = *reader_->impl_;
  if (n > left()) throw CorruptCheckpoint(where() + ": read past the end of the payload");
  const uint64_t start = impl.entries[index_].offset + done_;
  auto *out = static_cast<uint8_t *>(to);
  for (uint64_t at = 0; at < n;) {
    const uint64_t chunk = std::min(kChunkBytes, n - at);
    impl.read_at(start + at, out + at, chunk);
    crc_ = crc32c(crc_, out + at, chunk);
    at += chunk;
  }
  done_ += n;
}

void CheckpointReader::Stream::place(void *to, uint64_t n) {
  // Each mapping is a kernel memory area of its own, of which a process may have some 65000:
  // small pieces, and pieces beyond the first few thousand, are copied.
  constexpr uint64_t kPage = 4096, kMapAtLeast = uint64_t(64) << 10;
  constexpr int kMostMappings = 4096;
  Impl &impl = *reader_->impl_;
  const uint64_t start = impl.entries[index_].offset + done_;
  const auto address = reinterpret_cast<uintptr_t>(to);
  if (impl.fd < 0 || n < kMapAtLeast || n > left() || address % kPage != 0 || n % kPage != 0 ||
      start % kPage != 0 || impl.mappings >= kMostMappings)
    return read(to, n);
  ++impl.mappings;
  // Writable from the start (private: the program's writes copy the page; reading does not):
  // making 512 MiB of read-only mapping writable afterwards cost about 20 ms of a cold restart.
  if (::mmap(to, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, impl.fd, off_t(start)) != to) {
    // The range may be gone now: fresh pages, then the copy.
    if (::mmap(to, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
               -1, 0) != to)
      throw_sys_error("map memory back at " + std::to_string(address));
    return read(to, n);
  }
  // The checksum reads the file, not the mapping: faulting 512 MiB of mapping in cost 0.2 s of
  // page-table set-up (bench section 4), which pread into a buffer that stays in the cache does
  // not; the program's first touch of a page maps it from the page cache this read filled.
  skim(n);
}

void CheckpointReader::Stream::skim(uint64_t n) {
  Impl &impl = *reader_->impl_;
  if (!impl.checksum_buffer) impl.checksum_buffer.reset(new uint8_t[kChecksumPiece]);
  for (uint64_t piece = 0; n > 0; n -= piece) {
    piece = std::min(kChecksumPiece, n);
    read(impl.checksum_buffer.get(), piece);
  }
}

void CheckpointReader::Stream::drain() {
  skim(left());
  finish();
}

void CheckpointReader::Stream::finish() {
  Impl &impl = *reader_->impl_;
  Impl::Entry &e = impl.entries[index_];
  if (done_ != length_) throw CorruptCheckpoint(where() + ": bytes left after its last piece");
  const uint64_t padding = align8(length_) - length_;
  uint8_t pad[8] = {};
  impl.read_at(e.offset + length_, pad, padding);
  if (crc_ != e.crc) throw CorruptCheckpoint(where() + ": checksum mismatch");
  for (uint64_t k = 0; k < padding; ++k)
    if (pad[k] != 0) throw CorruptCheckpoint(where() + ": non-zero padding");
  e.verified = true;
}

}  // namespace c3
