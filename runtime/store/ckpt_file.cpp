// Checkpoint file writer (format: ckpt_format.hpp) and the names of section kinds.
#include "store/ckpt_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "store/ckpt_format.hpp"
#include "store/crc32c.hpp"
#include "support/error.hpp"

namespace c3 {
namespace {

using namespace format;

// Large sections are written in batches: the CRC of a batch is computed right before writev
// copies it, while it is still in cache.
constexpr size_t kBatchBytes = size_t(4) << 20;
// Dirty pages are handed to the disk every this many bytes, so the final fsync has little left.
constexpr uint64_t kWritebackWindow = uint64_t(32) << 20;
constexpr uint8_t kZeros[8] = {};

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

uint64_t CheckpointWriter::next_payload_offset() const {
  return impl_->offset + kSectionHeaderBytes;
}

}  // namespace c3
