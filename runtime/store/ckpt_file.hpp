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
  // The file offset where the payload of the next section added will start.
  uint64_t next_payload_offset() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct SectionView {
  uint32_t kind;
  const uint8_t *data;
  uint64_t size;
};

// How much a reader checks when it opens a file.
enum class Verify {
  All,        // every checksum at once; the file is mapped read-only and views point into it
  Structure,  // the file header, every section header and the END record at once; a section's
              // payload when it is read (a restart reads the heap straight into its place)
};

// Opens a checkpoint file and verifies it (header, section checksums, END record) as `verify`
// says. Throws CorruptCheckpoint naming the file and the section on damage or truncation,
// c3::Error if the file cannot be opened or read. Views stay valid while the reader lives.
class CheckpointReader {
 public:
  explicit CheckpointReader(const std::string &path, Verify verify = Verify::All);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader &) = delete;
  CheckpointReader &operator=(const CheckpointReader &) = delete;

  const FileHeader &header() const;
  // Every section in file order, kinds this version does not know too; every payload is 8-byte
  // aligned. With Verify::Structure this reads (and verifies) all payloads not read yet.
  const std::vector<SectionView> &sections() const;
  // The (first) section of that kind, read and verified; throws CorruptCheckpoint if missing.
  const SectionView &section(SectionKind kind) const;
  // Same, or nullptr when the file has none.
  const SectionView *find(SectionKind kind) const;

  // A section's payload read in order into memory the caller chooses, checksummed as it
  // arrives (in chunks, while they are in cache). The checksum is known only at finish(): until
  // then the bytes read may be damaged, so the caller must be able to discard them.
  class Stream {
   public:
    void read(void *to, uint64_t n);  // CorruptCheckpoint past the payload's end
    // Same for whole pages of memory nothing else uses: where the bytes lie at a page boundary
    // of the file, the file's pages are mapped there (private, copied only when written; a page
    // comes into the process when it is first touched) and the file is checksummed through a
    // small buffer, instead of copied.
    void place(void *to, uint64_t n);
    uint64_t left() const { return length_ - done_; }
    void finish();  // CorruptCheckpoint on a checksum mismatch, bad padding or bytes left
    void drain();   // reads what is left through a small buffer, then finish()
    std::string where() const;  // "<path>: section <NAME>", for the caller's own messages

   private:
    friend class CheckpointReader;
    Stream(const CheckpointReader *reader, size_t index);
    void skim(uint64_t n);  // reads n bytes through the reader's small buffer: checksummed only
    const CheckpointReader *reader_;
    size_t index_;
    uint64_t length_, done_ = 0;
    uint32_t crc_ = 0;
  };
  // The (first) section of that kind; throws CorruptCheckpoint if missing.
  Stream stream(SectionKind kind) const;
  // Verifies every payload not read yet, through a small buffer (Verify::Structure).
  void verify_rest() const;

  const std::string &path() const;
  uint64_t file_size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace c3
