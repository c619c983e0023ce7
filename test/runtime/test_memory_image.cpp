// A GLOBALS/HEAP/FRAMES payload read back: as views (decode_memory_image) and straight into
// place (read_memory_image_in_place, how a restart loads the heap).
#include <sys/mman.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ckpt_test_tmpdir.hpp"
#include "store/ckpt_file.hpp"
#include "store/memory_image.hpp"
#include "support/error.hpp"

using c3::CheckpointReader;
using c3::CheckpointWriter;
using c3::CorruptCheckpoint;
using c3::MemoryPiece;
using c3::SectionKind;
using c3::Verify;
using c3::test::TmpDir;

namespace {

// Two pieces of `source`, written as a HEAP section. The second starts off a page boundary, so
// it is copied back, never mapped over memory the vector's allocator owns.
void write_heap(const std::string &path, const std::vector<uint8_t> &source) {
  c3::MemoryImageBuilder image;
  image.add(source.data(), 1000);
  image.add(source.data() + 4100, source.size() - 4100);
  c3::FileHeader header;
  header.build_id = "id";
  CheckpointWriter w(path, header);
  w.add_section(SectionKind::Heap, image.pieces());
  w.commit();
}

std::vector<uint8_t> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char *>(bytes.data()), long(bytes.size()));
}

const auto kAccept = [](const std::vector<MemoryPiece> &) {};

// Flips each byte of the file at `path` (every one of the first `exact` bytes, then every
// `stride`-th) and requires each damaged file to be refused as damage by a restart-like read
// whose check keeps the pieces inside [lo, hi) (a damaged table may name any address).
void expect_every_flip_refused(const std::string &path, size_t exact, size_t stride, uint8_t mask,
                               const void *lo, const void *hi) {
  const std::vector<uint8_t> original = read_file(path);
  for (size_t i = 0; i < original.size(); i += i < exact ? 1 : stride) {
    std::vector<uint8_t> damaged = original;
    damaged[i] ^= mask;
    write_file(path, damaged);
    bool refused = false;
    try {
      CheckpointReader r(path, Verify::Structure);
      c3::read_memory_image_in_place(r, SectionKind::Heap, [&](const std::vector<MemoryPiece> &p) {
        for (const MemoryPiece &piece : p)
          if (piece.address < uintptr_t(lo) || piece.address + piece.size > uintptr_t(hi))
            throw c3::Error("piece outside the memory");
      });
      r.verify_rest();
    } catch (const CorruptCheckpoint &) {
      refused = true;
    }
    if (!refused) FAIL("byte " << i << " flipped was not reported as damage");
  }
  write_file(path, original);
}

}  // namespace

TEST_CASE("memory image: pieces go straight back to their addresses", "[memory_image]") {
  TmpDir dir;
  const std::string path = dir / "heap.c3";
  std::vector<uint8_t> source(3 << 20);
  for (size_t i = 0; i < source.size(); ++i) source[i] = uint8_t(i ^ (i >> 9));
  write_heap(path, source);
  const std::vector<uint8_t> saved = source;
  std::fill(source.begin(), source.end(), 0);  // the "restarted process": same addresses

  CheckpointReader r(path, Verify::Structure);
  std::vector<MemoryPiece> seen;
  c3::read_memory_image_in_place(r, SectionKind::Heap, [&](const std::vector<MemoryPiece> &p) {
    seen = p;
    CHECK(std::all_of(source.begin(), source.end(), [](uint8_t b) { return b == 0; }));
  });
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].address == reinterpret_cast<uintptr_t>(source.data()));
  CHECK(seen[1].size == source.size() - 4100);
  CHECK(std::memcmp(source.data(), saved.data(), 1000) == 0);
  CHECK(std::memcmp(source.data() + 4100, saved.data() + 4100, source.size() - 4100) == 0);
  CHECK(std::all_of(source.begin() + 1000, source.begin() + 4100, [](uint8_t b) { return b == 0; }));
  CHECK_NOTHROW(r.verify_rest());
}

TEST_CASE("memory image: damage anywhere in the section is refused", "[memory_image]") {
  TmpDir dir;
  const std::string path = dir / "heap.c3";
  std::vector<uint8_t> source(64 << 10);
  for (size_t i = 0; i < source.size(); ++i) source[i] = uint8_t(i * 13);
  write_heap(path, source);
  // Byte by byte over the section header, the table and the start of the data; then strided.
  expect_every_flip_refused(path, 400, 97, 0x21, source.data(), source.data() + source.size());
}

TEST_CASE("memory image: a refused table is damage only if the checksum says so", "[memory_image]") {
  TmpDir dir;
  const std::string path = dir / "heap.c3";
  std::vector<uint8_t> source(8192, 7);
  write_heap(path, source);
  auto refuse = [](const std::vector<MemoryPiece> &) { throw c3::Error("does not fit"); };
  {
    CheckpointReader r(path, Verify::Structure);
    CHECK_THROWS_WITH(c3::read_memory_image_in_place(r, SectionKind::Heap, refuse), "does not fit");
  }
  std::vector<uint8_t> bytes = read_file(path);
  bytes[bytes.size() - 100] ^= 1;  // in the data, after the table
  write_file(path, bytes);
  CheckpointReader r(path, Verify::Structure);
  CHECK_THROWS_AS(c3::read_memory_image_in_place(r, SectionKind::Heap, refuse), CorruptCheckpoint);
  CHECK_THROWS_AS(c3::read_memory_image_in_place(r, SectionKind::Heap, kAccept), CorruptCheckpoint);
}

namespace {

// Page-aligned memory of its own mapping, as the heap arena is.
struct Pages {
  explicit Pages(size_t n) : size(n) {
    void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    bytes = static_cast<uint8_t *>(p);
  }
  ~Pages() { munmap(bytes, size); }
  uint8_t *bytes;
  size_t size;
};

// The kibibytes of the mapping that starts at `at` that are in this process's page tables
// (/proc/self/smaps), or -1 when no mapping starts there.
long resident_kib(const void *at) {
  char start[32];
  std::snprintf(start, sizeof start, "%lx-", static_cast<unsigned long>(reinterpret_cast<uintptr_t>(at)));
  std::ifstream smaps("/proc/self/smaps");
  bool found = false;
  for (std::string line; std::getline(smaps, line);) {
    if (line.rfind(start, 0) == 0) found = true;
    if (found && line.rfind("Rss:", 0) == 0) return std::stol(line.substr(4));
  }
  return -1;
}

}  // namespace

TEST_CASE("memory image: whole pages at a page boundary of the file are mapped back",
          "[memory_image]") {
  TmpDir dir;
  const std::string path = dir / "pages.c3";
  Pages memory(4 << 20);
  for (size_t i = 0; i < memory.size; ++i) memory.bytes[i] = uint8_t(i * 31 + (i >> 13));
  {
    c3::MemoryImageBuilder image;
    image.add_pages(memory.bytes + 100, 5000);            // pages 0-1
    image.add_pages(memory.bytes + 8192, 10);             // page 2: joins the first piece
    image.add_pages(memory.bytes + (1 << 20), 3 << 20);   // a large piece of its own
    c3::FileHeader header;
    header.build_id = "id";
    CheckpointWriter w(path, header);
    w.add_section(SectionKind::Meta, "m", 1);  // the heap's payload does not start aligned
    w.add_section(SectionKind::Heap, image.pieces(w.next_payload_offset(), 4096));
    w.commit();
  }
  const std::vector<uint8_t> saved(memory.bytes, memory.bytes + memory.size);
  std::memset(memory.bytes, 0, memory.size);
  CheckpointReader r(path, Verify::Structure);
  std::vector<MemoryPiece> seen;
  c3::read_memory_image_in_place(r, SectionKind::Heap,
                                 [&](const std::vector<MemoryPiece> &p) { seen = p; });
  REQUIRE(seen.size() == 2);
  // Checksummed from the file, not through the mapping: no page of the large piece is in the
  // process until it is touched (setting up their page tables was most of a restart's time).
  CHECK(resident_kib(memory.bytes + (1 << 20)) == 0);
  CHECK(seen[0].address == uintptr_t(memory.bytes));
  CHECK(seen[0].size == 3 * 4096);
  CHECK(seen[1].size == (3u << 20));
  CHECK(std::memcmp(memory.bytes, saved.data(), 3 * 4096) == 0);
  CHECK(std::memcmp(memory.bytes + (1 << 20), saved.data() + (1 << 20), 3 << 20) == 0);
  CHECK(std::all_of(memory.bytes + 3 * 4096, memory.bytes + (1 << 20), [](uint8_t b) { return b == 0; }));
  // Private: writing the restored memory leaves the file as it was.
  const std::vector<uint8_t> file_before = read_file(path);
  std::memset(memory.bytes + (1 << 20), 0xee, 1 << 20);
  CHECK(read_file(path) == file_before);
  CHECK_NOTHROW(r.verify_rest());
}

TEST_CASE("memory image: damage in mapped pages is refused", "[memory_image]") {
  TmpDir dir;
  const std::string path = dir / "pages.c3";
  Pages memory(1 << 20);
  for (size_t i = 0; i < memory.size; ++i) memory.bytes[i] = uint8_t(i * 7);
  {
    c3::MemoryImageBuilder image;
    image.add_pages(memory.bytes, memory.size);
    c3::FileHeader header;
    header.build_id = "id";
    CheckpointWriter w(path, header);
    w.add_section(SectionKind::Heap, image.pieces(w.next_payload_offset(), 4096));
    w.commit();
  }
  expect_every_flip_refused(path, 8192, 4093, 0x08, memory.bytes, memory.bytes + memory.size);
}

TEST_CASE("memory image: a payload too short for its header is refused, not read past",
          "[memory_image]") {
  for (uint64_t size : {0, 8, 15}) {
    std::vector<uint8_t> bytes(size, 0);  // count 0, and no room for the data offset
    const c3::SectionView view{uint32_t(SectionKind::Globals), bytes.data(), size};
    CHECK_THROWS_AS(c3::decode_memory_image(view, "f.c3"), CorruptCheckpoint);
  }
}
