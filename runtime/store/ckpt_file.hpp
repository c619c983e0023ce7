// One checkpoint file: a header and checksummed sections (see docs/architecture.md).
#pragma once
#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace c3 {

enum class SectionKind : uint32_t {
  Meta = 1,
  Globals = 2,
  Heap = 3,
  Frames = 4,
  Runtime = 5,
  Stdio = 6,
  Protocol = 7,
  HeldOutput = 8,  // stdout held back since the previous checkpoint (output_commit)
  Files = 9,       // the program's open files (io/open_files)
  End = 0x454e4421,  // "END!"
};
const char *section_name(uint32_t kind);  // "HEAP", ... or "unknown(0x..)"

struct FileHeader {
  uint32_t format_version = 1;
  std::string build_id;  // raw bytes of the executable's GNU build-id
  uint32_t rank = 0;
  uint32_t nranks = 1;
  uint64_t checkpoint = 0;     // checkpoint number
  uint64_t unix_time_ns = 0;   // wall clock when written (the writer fills in 0 as now)
};

// Writes `final_path` + ".tmp", then fsync + rename + fsync(dir) in commit(). Sections are
// gathered from caller memory (no copy). Throws c3::Error on any I/O error (ENOSPC included);
// a writer destroyed before commit() removes its temporary file. The header must have
// rank < nranks and a build-id of at most 255 bytes. Sections of kind End are refused.
class CheckpointWriter {
 public:
  CheckpointWriter(const std::string &final_path, const FileHeader &header);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter &) = delete;
  CheckpointWriter &operator=(const CheckpointWriter &) = delete;

  void add_section(SectionKind kind, const std::vector<iovec> &pieces);
  void add_section(SectionKind kind, const void *data, size_t size);
  void commit();
  uint64_t bytes_written() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct SectionView {
  uint32_t kind;
  const uint8_t *data;
  uint64_t size;
};

// Opens and fully verifies a checkpoint file (header, every section checksum, END record).
// Throws CorruptCheckpoint naming the file and the section on damage or truncation, c3::Error
// if the file cannot be opened. The file is mapped read-only; views stay valid while the reader
// lives.
class CheckpointReader {
 public:
  explicit CheckpointReader(const std::string &path);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader &) = delete;
  CheckpointReader &operator=(const CheckpointReader &) = delete;

  const FileHeader &header() const;
  const std::vector<SectionView> &sections() const;
  // The (first) section of that kind; throws CorruptCheckpoint if missing. sections() also
  // lists kinds this version does not know, in file order; every payload is 8-byte aligned.
  const SectionView &section(SectionKind kind) const;
  const std::string &path() const;
  uint64_t file_size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace c3
