// Checkpoint file writer and reader. Layout (all integers little-endian):
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
// before a restart touches memory.
#include "store/ckpt_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "store/crc32c.hpp"
#include "support/error.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the checkpoint format is little-endian");

namespace c3 {
namespace {

constexpr char kMagic[8] = {'C', '3', 'C', 'K', 'P', 'T', '\r', '\n'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kFixedHeaderBytes = 44;  // up to and including the build-id length
constexpr size_t kMaxBuildIdBytes = 255;
constexpr size_t kSectionHeaderBytes = 24;
constexpr size_t kSectionCrcCovered = 20;
constexpr size_t kEndPayloadBytes = 16;

// Large sections are written in batches: the CRC of a batch is computed right before writev
// copies it, while it is still in cache.
constexpr size_t kBatchBytes = size_t(4) << 20;
// Dirty pages are handed to the disk every this many bytes, so the final fsync has little left.
constexpr uint64_t kWritebackWindow = uint64_t(32) << 20;

constexpr uint8_t kZeros[8] = {};

uint64_t align8(uint64_t n) { return (n + 7) & ~uint64_t(7); }

void put_u32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }
void put_u64(uint8_t *p, uint64_t v) { std::memcpy(p, &v, 8); }
uint32_t get_u32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t get_u64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

size_t header_length_for(size_t build_id_bytes) {
  return align8(kFixedHeaderBytes + build_id_bytes + 4);
}

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

struct SectionHeader {
  uint8_t bytes[kSectionHeaderBytes];
};

SectionHeader encode_section_header(uint32_t kind, uint64_t length, uint32_t payload_crc) {
  SectionHeader h{};
  put_u32(h.bytes, kind);
  put_u32(h.bytes + 4, 0);
  put_u64(h.bytes + 8, length);
  put_u32(h.bytes + 16, payload_crc);
  put_u32(h.bytes + 20, crc32c(0, h.bytes, kSectionCrcCovered));
  return h;
}

std::string parent_dir(const std::string &path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void fsync_dir(const std::string &dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_sys_error("open directory " + dir);
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    throw_sys_error("fsync directory " + dir);
  }
  ::close(fd);
}

}  // namespace

const char *section_name(uint32_t kind) {
  switch (static_cast<SectionKind>(kind)) {
    case SectionKind::Meta: return "META";
    case SectionKind::Globals: return "GLOBALS";
    case SectionKind::Heap: return "HEAP";
    case SectionKind::Frames: return "FRAMES";
    case SectionKind::Runtime: return "RUNTIME";
    case SectionKind::Stdio: return "STDIO";
    case SectionKind::Protocol: return "PROTOCOL";
    case SectionKind::HeldOutput: return "OUTPUT";
    case SectionKind::Files: return "FILES";
    case SectionKind::End: return "END";
  }
  thread_local char unknown[32];
  std::snprintf(unknown, sizeof unknown, "unknown(0x%x)", kind);
  return unknown;
}

// ---------------------------------------------------------------------------------------------
// Writer

struct CheckpointWriter::Impl {
  std::string final_path;
  std::string tmp_path;
  int fd = -1;
  uint64_t offset = 0;          // bytes written so far = current file position
  uint64_t flushed_to = 0;      // writeback has been started for [0, flushed_to)
  uint64_t sections = 0;        // sections written, END excluded
  bool writeback_hints = true;  // sync_file_range works on this file
  bool committed = false;
  bool failed = false;

  ~Impl() {
    if (fd >= 0) ::close(fd);
    if (!committed) ::unlink(tmp_path.c_str());  // ENOENT is fine: nothing was created
  }

  [[noreturn]] void fail(const std::string &what) {
    failed = true;
    throw_sys_error(what);
  }

  void check_usable() const {
    if (committed) throw Error(final_path + ": checkpoint file already committed");
    if (failed) throw Error(final_path + ": checkpoint writer failed earlier");
  }

  // Writes iov[0..count) completely, at the current offset.
  void write_all(iovec *iov, int count) {
    while (count > 0) {
      const ssize_t n = ::writev(fd, iov, count);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("write " + tmp_path);
      }
      if (n == 0) {
        errno = EIO;
        fail("write " + tmp_path);
      }
      offset += uint64_t(n);
      size_t done = size_t(n);
      while (count > 0 && done >= iov->iov_len) {
        done -= iov->iov_len;
        ++iov;
        --count;
      }
      if (count > 0) {
        iov->iov_base = static_cast<char *>(iov->iov_base) + done;
        iov->iov_len -= done;
      }
    }
    start_writeback();
  }

  void pwrite_all(const void *data, size_t len, uint64_t at) {
    const char *p = static_cast<const char *>(data);
    while (len > 0) {
      const ssize_t n = ::pwrite(fd, p, len, off_t(at));
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("write " + tmp_path);
      }
      if (n == 0) {
        errno = EIO;
        fail("write " + tmp_path);
      }
      p += n;
      len -= size_t(n);
      at += uint64_t(n);
    }
  }

  // Streams dirty pages to the disk while later sections are still being produced, instead of
  // leaving the whole file to the final fsync. Only a hint: where the file system cannot do it,
  // it is skipped; real I/O errors are reported here rather than later.
  void start_writeback() {
    if (!writeback_hints || offset - flushed_to < kWritebackWindow) return;
    const uint64_t end = offset & ~(kWritebackWindow - 1);
    if (::sync_file_range(fd, off_t(flushed_to), off_t(end - flushed_to),
                          SYNC_FILE_RANGE_WRITE) != 0) {
      if (errno == EIO || errno == ENOSPC || errno == EDQUOT) fail("write " + tmp_path);
      writeback_hints = false;
    }
    flushed_to = end;
  }

  void write_file_header(const FileHeader &h) {
    if (h.build_id.size() > kMaxBuildIdBytes)
      throw Error(final_path + ": build-id too long (" + std::to_string(h.build_id.size()) +
                  " bytes)");
    if (h.nranks == 0 || h.rank >= h.nranks)
      throw Error(final_path + ": rank " + std::to_string(h.rank) + " out of range for " +
                  std::to_string(h.nranks) + " ranks");
    const size_t length = header_length_for(h.build_id.size());
    std::vector<uint8_t> bytes(length, 0);
    std::memcpy(bytes.data(), kMagic, 8);
    put_u32(&bytes[8], kFormatVersion);
    put_u32(&bytes[12], uint32_t(length));
    put_u32(&bytes[16], h.rank);
    put_u32(&bytes[20], h.nranks);
    put_u64(&bytes[24], h.checkpoint);
    put_u64(&bytes[32], h.unix_time_ns != 0 ? h.unix_time_ns : now_ns());
    put_u32(&bytes[40], uint32_t(h.build_id.size()));
    std::memcpy(&bytes[kFixedHeaderBytes], h.build_id.data(), h.build_id.size());
    put_u32(&bytes[length - 4], crc32c(0, bytes.data(), length - 4));
    iovec iov{bytes.data(), bytes.size()};
    write_all(&iov, 1);
  }

  void add_section(uint32_t kind, const std::vector<iovec> &pieces) {
    check_usable();
    uint64_t length = 0;
    for (const iovec &p : pieces) length += p.iov_len;
    const uint64_t header_offset = offset;
    SectionHeader header = encode_section_header(kind, length, 0);
    const size_t padding = size_t(align8(length) - length);

    // One batch: at most IOV_MAX entries and about kBatchBytes of payload. The section header
    // goes first in the first batch: final if the whole section fits in that batch, otherwise a
    // placeholder rewritten once the payload CRC is known.
    std::vector<iovec> batch;
    batch.reserve(std::min<size_t>(pieces.size() + 2, IOV_MAX));
    uint32_t payload_crc = 0;
    size_t piece = 0, piece_done = 0;
    bool first_batch = true, placeholder_written = false;
    for (;;) {
      batch.clear();
      if (first_batch) batch.push_back({header.bytes, kSectionHeaderBytes});
      size_t batch_bytes = 0;
      while (piece < pieces.size() && batch.size() < size_t(IOV_MAX) - 1 &&
             batch_bytes < kBatchBytes) {
        const iovec &p = pieces[piece];
        const size_t take = std::min(p.iov_len - piece_done, kBatchBytes - batch_bytes);
        if (take > 0) {
          const auto *base = static_cast<const uint8_t *>(p.iov_base) + piece_done;
          payload_crc = crc32c(payload_crc, base, take);
          batch.push_back({const_cast<uint8_t *>(base), take});
          batch_bytes += take;
          piece_done += take;
        }
        if (piece_done == p.iov_len) {
          ++piece;
          piece_done = 0;
        }
      }
      const bool last_batch = piece == pieces.size();
      if (last_batch && padding > 0) batch.push_back({const_cast<uint8_t *>(kZeros), padding});
      if (first_batch && last_batch) {
        header = encode_section_header(kind, length, payload_crc);
      } else if (first_batch) {
        placeholder_written = true;
      }
      write_all(batch.data(), int(batch.size()));
      first_batch = false;
      if (last_batch) break;
    }
    if (placeholder_written) {
      header = encode_section_header(kind, length, payload_crc);
      pwrite_all(header.bytes, kSectionHeaderBytes, header_offset);
    }
    ++sections;
  }

  void commit() {
    check_usable();
    uint8_t end_payload[kEndPayloadBytes];
    put_u64(end_payload, sections);
    put_u64(end_payload + 8, offset);
    SectionHeader end = encode_section_header(static_cast<uint32_t>(SectionKind::End),
                                              kEndPayloadBytes,
                                              crc32c(0, end_payload, kEndPayloadBytes));
    iovec iov[2] = {{end.bytes, kSectionHeaderBytes}, {end_payload, kEndPayloadBytes}};
    write_all(iov, 2);
    if (::fsync(fd) != 0) fail("fsync " + tmp_path);
    const int closing = fd;
    fd = -1;
    if (::close(closing) != 0) fail("close " + tmp_path);
    if (::rename(tmp_path.c_str(), final_path.c_str()) != 0)
      fail("rename " + tmp_path + " to " + final_path);
    committed = true;  // the tmp file is gone; nothing left for the destructor to remove
    fsync_dir(parent_dir(final_path));
  }
};

CheckpointWriter::CheckpointWriter(const std::string &final_path, const FileHeader &header)
    : impl_(std::make_unique<Impl>()) {
  impl_->final_path = final_path;
  impl_->tmp_path = final_path + ".tmp";
  impl_->fd = ::open(impl_->tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (impl_->fd < 0) {
    const int saved = errno;
    impl_->committed = true;  // we created nothing, so the destructor must not unlink anything
    errno = saved;
    throw_sys_error("create " + impl_->tmp_path);
  }
  impl_->write_file_header(header);
}

CheckpointWriter::~CheckpointWriter() = default;

void CheckpointWriter::add_section(SectionKind kind, const std::vector<iovec> &pieces) {
  if (kind == SectionKind::End) throw Error(impl_->final_path + ": END is written by commit()");
  impl_->add_section(static_cast<uint32_t>(kind), pieces);
}

void CheckpointWriter::add_section(SectionKind kind, const void *data, size_t size) {
  add_section(kind, std::vector<iovec>{{const_cast<void *>(data), size}});
}

void CheckpointWriter::commit() { impl_->commit(); }

uint64_t CheckpointWriter::bytes_written() const { return impl_->offset; }

// ---------------------------------------------------------------------------------------------
// Reader

struct CheckpointReader::Impl {
  std::string path;
  const uint8_t *map = nullptr;
  uint64_t size = 0;
  FileHeader header;
  std::vector<SectionView> sections;

  ~Impl() {
    if (map != nullptr) ::munmap(const_cast<uint8_t *>(map), size);
  }

  [[noreturn]] void corrupt(const std::string &what) const {
    throw CorruptCheckpoint(path + ": " + what);
  }

  void open_and_map() {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_sys_error("open " + path);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      throw_sys_error("stat " + path);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      throw Error(path + ": not a regular file");
    }
    size = uint64_t(st.st_size);
    if (size == 0) {
      ::close(fd);
      corrupt("empty file (truncated inside the file header)");
    }
    // Everything is read during verification, so populate the mapping in one go.
    void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    const int saved = errno;
    ::close(fd);
    if (p == MAP_FAILED) {
      errno = saved;
      throw_sys_error("mmap " + path);
    }
    map = static_cast<const uint8_t *>(p);
  }

  void verify_header() {
    if (size < kFixedHeaderBytes) corrupt("truncated inside the file header");
    if (std::memcmp(map, kMagic, 8) != 0) corrupt("not a c3 checkpoint file (bad magic)");
    const uint32_t length = get_u32(map + 12);
    if (length < header_length_for(0) || length % 8 != 0 ||
        length > header_length_for(kMaxBuildIdBytes))
      corrupt("file header: bad header length " + std::to_string(length));
    if (length > size) corrupt("truncated inside the file header");
    if (crc32c(0, map, length - 4) != get_u32(map + length - 4))
      corrupt("file header: checksum mismatch");
    header.format_version = get_u32(map + 8);
    if (header.format_version != kFormatVersion)
      corrupt("unsupported format version " + std::to_string(header.format_version));
    const uint32_t build_id_bytes = get_u32(map + 40);
    if (build_id_bytes > kMaxBuildIdBytes || header_length_for(build_id_bytes) != length)
      corrupt("file header: build-id length " + std::to_string(build_id_bytes) +
              " does not match header length " + std::to_string(length));
    header.rank = get_u32(map + 16);
    header.nranks = get_u32(map + 20);
    if (header.nranks == 0 || header.rank >= header.nranks)
      corrupt("file header: rank " + std::to_string(header.rank) + " out of range for " +
              std::to_string(header.nranks) + " ranks");
    header.checkpoint = get_u64(map + 24);
    header.unix_time_ns = get_u64(map + 32);
    header.build_id.assign(reinterpret_cast<const char *>(map + kFixedHeaderBytes),
                           build_id_bytes);
  }

  void verify_sections() {
    uint64_t off = get_u32(map + 12);
    std::string previous = "file header";
    for (;;) {
      const uint64_t remaining = size - off;
      if (remaining < kSectionHeaderBytes)
        corrupt("truncated after " + previous + " (expected END)");
      const uint8_t *h = map + off;
      if (crc32c(0, h, kSectionCrcCovered) != get_u32(h + 20))
        corrupt("section header after " + previous + ": checksum mismatch");
      const uint32_t kind = get_u32(h);
      const std::string name = std::string("section ") + section_name(kind);
      const uint64_t length = get_u64(h + 8);
      const uint64_t available = remaining - kSectionHeaderBytes;
      if (length > available)
        corrupt(name + ": truncated (" + std::to_string(available) + " of " +
                std::to_string(length) + " payload bytes present)");
      const uint8_t *payload = h + kSectionHeaderBytes;
      if (crc32c(0, payload, length) != get_u32(h + 16)) corrupt(name + ": checksum mismatch");
      const uint64_t padded = align8(length);
      if (padded > available) corrupt(name + ": truncated inside its padding");
      for (uint64_t i = length; i < padded; ++i)
        if (payload[i] != 0) corrupt(name + ": non-zero padding");
      if (kind == static_cast<uint32_t>(SectionKind::End)) {
        if (length != kEndPayloadBytes) corrupt("END record: bad length");
        if (get_u64(payload) != sections.size() || get_u64(payload + 8) != off)
          corrupt("END record does not match the sections found (sections were lost)");
        if (off + kSectionHeaderBytes + padded != size)
          corrupt("unexpected bytes after the END record");
        return;
      }
      // Unknown kinds are kept, not rejected: a newer writer may add sections.
      sections.push_back(SectionView{kind, payload, length});
      off += kSectionHeaderBytes + padded;
      previous = name;
    }
  }
};

CheckpointReader::CheckpointReader(const std::string &path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->open_and_map();
  impl_->verify_header();
  impl_->verify_sections();
}

CheckpointReader::~CheckpointReader() = default;

const FileHeader &CheckpointReader::header() const { return impl_->header; }

const std::vector<SectionView> &CheckpointReader::sections() const { return impl_->sections; }

const SectionView &CheckpointReader::section(SectionKind kind) const {
  for (const SectionView &s : impl_->sections)
    if (s.kind == static_cast<uint32_t>(kind)) return s;
  impl_->corrupt(std::string("missing section ") + section_name(static_cast<uint32_t>(kind)));
}

const std::string &CheckpointReader::path() const { return impl_->path; }

uint64_t CheckpointReader::file_size() const { return impl_->size; }

}  // namespace c3
