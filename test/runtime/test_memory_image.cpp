// A GLOBALS/HEAP/FRAMES payload read back: as views (decode_memory_image) and straight into
// place (read_memory_image_in_place, how a restart loads the heap).
#include <catch2/catch.hpp>
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

// Two pieces of `source`, written as a HEAP section.
void write_heap(const std::string &path, const std::vector<uint8_t> &source) {
  c3::MemoryImageBuilder image;
  image.add(source.data(), 1000);
  image.add(source.data() + 4096, source.size() - 4096);
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
  CHECK(seen[1].size == source.size() - 4096);
  CHECK(std::memcmp(source.data(), saved.data(), 1000) == 0);
  CHECK(std::memcmp(source.data() + 4096, saved.data() + 4096, source.size() - 4096) == 0);
  CHECK(std::all_of(source.begin() + 1000, source.begin() + 4096, [](uint8_t b) { return b == 0; }));
  CHECK_NOTHROW(r.verify_rest());
}

TEST_CASE("memory image: damage anywhere in the section is refused", "[memory_image]") {
  TmpDir dir;
  const std::string path = dir / "heap.c3";
  std::vector<uint8_t> source(64 << 10);
  for (size_t i = 0; i < source.size(); ++i) source[i] = uint8_t(i * 13);
  write_heap(path, source);
  const std::vector<uint8_t> original = read_file(path);
  // Byte by byte over the section header, the table and the start of the data; then strided.
  for (size_t i = 0; i < original.size(); i += i < 400 ? 1 : 97) {
    std::vector<uint8_t> damaged = original;
    damaged[i] ^= 0x21;
    write_file(path, damaged);
    bool refused = false;
    try {
      CheckpointReader r(path, Verify::Structure);
      // The table may now name addresses anywhere: the check keeps the pieces inside source.
      c3::read_memory_image_in_place(r, SectionKind::Heap, [&](const std::vector<MemoryPiece> &p) {
        for (const MemoryPiece &piece : p)
          if (piece.address < uintptr_t(source.data()) ||
              piece.address + piece.size > uintptr_t(source.data() + source.size()))
            throw c3::Error("piece outside the buffer");
      });
      r.verify_rest();
    } catch (const CorruptCheckpoint &) {
      refused = true;
    }
    if (!refused) FAIL("byte " << i << " flipped was not reported as damage");
  }
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
