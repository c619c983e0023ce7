#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "store/ckpt_file.hpp"
#include "ckpt_test_tmpdir.hpp"
#include "support/error.hpp"

using c3::CheckpointReader;
using c3::CheckpointWriter;
using c3::CorruptCheckpoint;
using c3::FileHeader;
using c3::SectionKind;
using c3::Verify;
using c3::test::TmpDir;

namespace {

bool exists(const std::string &path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<uint8_t> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string &path, const uint8_t *data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(data), std::streamsize(size));
  REQUIRE(out.good());
}

FileHeader sample_header(uint32_t rank = 1, uint32_t nranks = 4) {
  FileHeader h;
  h.build_id = std::string("\x01\x02\x00\xff build-id", 13);
  h.rank = rank;
  h.nranks = nranks;
  h.checkpoint = 3;
  h.unix_time_ns = 1700000000123456789ull;
  return h;
}

std::string text(const c3::SectionView &s) {
  return std::string(reinterpret_cast<const char *>(s.data), s.size);
}

// A small file exercising every structural element: odd payload lengths (padding), a
// multi-piece section, an empty section, a section of a kind this version does not know.
void write_small_checkpoint(const std::string &path) {
  CheckpointWriter w(path, sample_header());
  w.add_section(SectionKind::Meta, "meta!", 5);
  const char a[] = "globals-a", b[] = "globals-bb";
  w.add_section(SectionKind::Globals, {{const_cast<char *>(a), 9}, {const_cast<char *>(b), 10}});
  w.add_section(SectionKind::Frames, nullptr, 0);
  w.add_section(static_cast<SectionKind>(0x77), "future", 6);
  const uint64_t heap = 0x1122334455667788ull;
  w.add_section(SectionKind::Heap, &heap, sizeof heap);
  w.commit();
}

// What reading the whole file reports: with Verify::Structure the payloads are checked when
// they are read, so every one is read.
std::string corrupt_message(const std::string &path, Verify verify = Verify::All) {
  try {
    CheckpointReader r(path, verify);
    r.verify_rest();
    (void)r.sections();
  } catch (const CorruptCheckpoint &e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("checkpoint round trip with many section shapes", "[ckpt_file]") {
  TmpDir dir;
  const std::string path = dir / "rank.1.c3";

  // > 64 MiB, not a multiple of 8, so it is written in many batches and padded.
  std::vector<uint8_t> big((size_t(65) << 20) + 3);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 131 + (i >> 20));
  // More pieces than one writev may take (IOV_MAX).
  std::vector<uint64_t> many(3 * IOV_MAX + 17);
  std::vector<iovec> many_pieces;
  for (size_t i = 0; i < many.size(); ++i) {
    many[i] = i * 0x9e3779b97f4a7c15ull;
    many_pieces.push_back({&many[i], i % 3 == 0 ? 0u : sizeof many[i]});
  }
  const std::string g1 = "first global", g2 = "2nd", g3 = "third piece of globals";
  uint64_t bytes_written = 0;
  {
    CheckpointWriter w(path, sample_header());
    const uint64_t after_header = w.bytes_written();
    CHECK(after_header > 0);
    CHECK(after_header % 8 == 0);
    w.add_section(SectionKind::Meta, "m", 1);
    CHECK(w.bytes_written() == after_header + 24 + 8);
    w.add_section(SectionKind::Globals, {{const_cast<char *>(g1.data()), g1.size()},
                                         {nullptr, 0},
                                         {const_cast<char *>(g2.data()), g2.size()},
                                         {const_cast<char *>(g3.data()), g3.size()}});
    w.add_section(SectionKind::Heap, big.data(), big.size());
    w.add_section(SectionKind::Runtime, many_pieces);
    w.add_section(SectionKind::Frames, nullptr, 0);
    w.add_section(static_cast<SectionKind>(0xabcdef), "unknown kind", 12);
    CHECK(exists(path + ".tmp"));
    CHECK_FALSE(exists(path));
    w.commit();
    bytes_written = w.bytes_written();
  }
  CHECK_FALSE(exists(path + ".tmp"));
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(uint64_t(st.st_size) == bytes_written);

  CheckpointReader r(path);
  CHECK(r.path() == path);
  CHECK(r.file_size() == bytes_written);
  const FileHeader &h = r.header();
  CHECK(h.format_version == 2);
  CHECK(h.build_id == sample_header().build_id);
  CHECK(h.rank == 1);
  CHECK(h.nranks == 4);
  CHECK(h.checkpoint == 3);
  CHECK(h.unix_time_ns == 1700000000123456789ull);

  const auto &s = r.sections();
  REQUIRE(s.size() == 6);
  CHECK(s[0].kind == uint32_t(SectionKind::Meta));
  CHECK(text(s[0]) == "m");
  CHECK(text(s[1]) == g1 + g2 + g3);
  REQUIRE(s[2].size == big.size());
  CHECK(std::memcmp(s[2].data, big.data(), big.size()) == 0);
  std::vector<uint64_t> expected_many;
  for (size_t i = 0; i < many.size(); ++i)
    if (i % 3 != 0) expected_many.push_back(many[i]);
  REQUIRE(s[3].size == expected_many.size() * 8);
  CHECK(std::memcmp(s[3].data, expected_many.data(), s[3].size) == 0);
  CHECK(s[4].size == 0);
  CHECK(s[5].kind == 0xabcdefu);
  CHECK(text(s[5]) == "unknown kind");
  for (const auto &v : s) CHECK(reinterpret_cast<uintptr_t>(v.data) % 8 == 0);

  CHECK(r.section(SectionKind::Heap).data == s[2].data);
  CHECK(r.section(SectionKind::Frames).size == 0);
  CHECK_THROWS_AS(r.section(SectionKind::Protocol), CorruptCheckpoint);
  CHECK_THROWS_WITH(r.section(SectionKind::Stdio), Catch::Contains("missing section STDIO"));
}

TEST_CASE("a zero build-id and time 0 (meaning now) are written correctly", "[ckpt_file]") {
  TmpDir dir;
  FileHeader h;
  h.checkpoint = 1;
  {
    CheckpointWriter w(dir / "f", h);
    w.commit();
  }
  CheckpointReader r(dir / "f");
  CHECK(r.header().build_id.empty());
  CHECK(r.header().unix_time_ns > 1600000000ull * 1000000000ull);
  CHECK(r.sections().empty());
}

TEST_CASE("flipping any single byte of a checkpoint file is detected", "[ckpt_file]") {
  TmpDir dir;
  const std::string good = dir / "good.c3", bad = dir / "bad.c3";
  write_small_checkpoint(good);
  REQUIRE_NOTHROW(CheckpointReader(good));
  const std::vector<uint8_t> original = read_file(good);
  REQUIRE(original.size() > 100);
  for (Verify verify : {Verify::All, Verify::Structure}) {
    for (uint8_t mask : {uint8_t(0xff), uint8_t(0x01), uint8_t(0x80)}) {
      for (size_t i = 0; i < original.size(); ++i) {
        std::vector<uint8_t> damaged = original;
        damaged[i] ^= mask;
        write_file(bad, damaged.data(), damaged.size());
        // The message names the file.
        if (corrupt_message(bad, verify).find(bad) != 0)
          FAIL("byte " << i << " ^ " << int(mask) << " was not reported ("
                       << (verify == Verify::All ? "all" : "structure") << ")");
      }
    }
  }
}

TEST_CASE("Verify::Structure checks headers at once and each payload when it is read",
          "[ckpt_file]") {
  TmpDir dir;
  const std::string path = dir / "lazy.c3";
  write_small_checkpoint(path);
  std::vector<uint8_t> bytes = read_file(path);
  // The GLOBALS payload: after the header and the META section (24 + 8 bytes).
  const size_t header_len = bytes.size() - (24 + 8) - (24 + 24) - 24 - (24 + 8) - (24 + 8) - (24 + 16);
  const size_t globals_payload = header_len + 32 + 24;
  bytes[globals_payload + 3] ^= 1;
  write_file(path, bytes.data(), bytes.size());
  CheckpointReader r(path, Verify::Structure);  // no payload read yet: opens
  CHECK(text(r.section(SectionKind::Meta)) == "meta!");
  CHECK(r.find(SectionKind::Stdio) == nullptr);
  CHECK_THROWS_WITH(r.section(SectionKind::Globals),
                    path + ": section GLOBALS: checksum mismatch");
  CHECK_THROWS_AS(r.verify_rest(), CorruptCheckpoint);
}

TEST_CASE("a section streamed into place is checksummed as it arrives", "[ckpt_file]") {
  TmpDir dir;
  const std::string path = dir / "stream.c3";
  std::vector<uint8_t> heap(3 << 20);  // more than one chunk
  for (size_t i = 0; i < heap.size(); ++i) heap[i] = uint8_t(i * 7 + (i >> 12));
  {
    CheckpointWriter w(path, sample_header(0, 1));
    w.add_section(SectionKind::Heap, heap.data(), heap.size() - 3);  // padded
    w.commit();
  }
  std::vector<uint8_t> into(heap.size(), 0);
  SECTION("intact: bytes in place, finish() accepts") {
    CheckpointReader r(path, Verify::Structure);
    CheckpointReader::Stream s = r.stream(SectionKind::Heap);
    s.read(into.data(), 100);
    s.read(into.data() + 100, s.left());
    CHECK_NOTHROW(s.finish());
    CHECK(std::equal(into.begin(), into.end() - 3, heap.begin()));
    CHECK_NOTHROW(r.verify_rest());
  }
  SECTION("a damaged byte is found at finish()") {
    std::vector<uint8_t> bytes = read_file(path);
    bytes[bytes.size() / 2] ^= 0x10;
    write_file(path, bytes.data(), bytes.size());
    CheckpointReader r(path, Verify::Structure);
    CheckpointReader::Stream s = r.stream(SectionKind::Heap);
    s.read(into.data(), s.left());
    CHECK_THROWS_WITH(s.finish(), path + ": section HEAP: checksum mismatch");
  }
  SECTION("reading past the payload or leaving bytes is refused") {
    CheckpointReader r(path, Verify::Structure);
    CheckpointReader::Stream s = r.stream(SectionKind::Heap);
    CHECK_THROWS_AS(s.read(into.data(), heap.size()), CorruptCheckpoint);
    s.read(into.data(), 10);
    CHECK_THROWS_WITH(s.finish(), Catch::Contains("bytes left"));
  }
}

TEST_CASE("truncating a checkpoint file at any length is detected", "[ckpt_file]") {
  TmpDir dir;
  const std::string good = dir / "good.c3", cut = dir / "cut.c3";
  write_small_checkpoint(good);
  const std::vector<uint8_t> original = read_file(good);
  for (Verify verify : {Verify::All, Verify::Structure})
    for (size_t length = 0; length < original.size(); ++length) {
      write_file(cut, original.data(), length);
      const std::string message = corrupt_message(cut, verify);
      if (message.find("truncated") == std::string::npos)
        FAIL("truncation to " << length << " bytes: " << message);
    }
}

TEST_CASE("reader messages name the file and the section", "[ckpt_file]") {
  TmpDir dir;
  const std::string path = dir / "rank.0.c3";
  std::vector<uint8_t> heap(1000, 0x5a);
  {
    CheckpointWriter w(path, sample_header(0, 1));
    w.add_section(SectionKind::Globals, "globals!", 8);
    w.add_section(SectionKind::Heap, heap.data(), heap.size());
    w.commit();
  }
  std::vector<uint8_t> bytes = read_file(path);
  const std::vector<uint8_t> original = bytes;
  const size_t header_len = bytes.size() - (24 + 8) - (24 + 1000) - (24 + 16);
  const size_t heap_payload = header_len + 32 + 24;

  SECTION("payload checksum") {
    bytes[heap_payload + 500] ^= 1;
    write_file(path, bytes.data(), bytes.size());
    CHECK(corrupt_message(path) == path + ": section HEAP: checksum mismatch");
  }
  SECTION("cut right after a section") {
    write_file(path, bytes.data(), header_len + 32);
    CHECK(corrupt_message(path) == path + ": truncated after section GLOBALS (expected END)");
  }
  SECTION("cut inside a payload") {
    write_file(path, bytes.data(), heap_payload + 10);
    CHECK(corrupt_message(path) ==
          path + ": section HEAP: truncated (10 of 1000 payload bytes present)");
  }
  SECTION("bad magic") {
    bytes[0] = 'X';
    write_file(path, bytes.data(), bytes.size());
    CHECK_THAT(corrupt_message(path), Catch::Contains("bad magic"));
  }
  SECTION("bytes after END") {
    bytes.push_back(0);
    write_file(path, bytes.data(), bytes.size());
    CHECK_THAT(corrupt_message(path), Catch::Contains("after the END record"));
  }
  SECTION("a whole section cut out") {
    // Every remaining checksum is valid; the END record's section count catches it.
    std::vector<uint8_t> spliced(bytes.begin(), bytes.begin() + long(header_len));
    spliced.insert(spliced.end(), bytes.begin() + long(header_len + 32), bytes.end());
    write_file(path, spliced.data(), spliced.size());
    CHECK_THAT(corrupt_message(path), Catch::Contains("END record"));
  }
  SECTION("intact file still reads") {
    write_file(path, original.data(), original.size());
    CHECK_NOTHROW(CheckpointReader(path));
  }
}

TEST_CASE("reader reports missing files and non-files as errors", "[ckpt_file]") {
  TmpDir dir;
  CHECK_THROWS_WITH(CheckpointReader(dir / "none.c3"),
                    Catch::Contains("none.c3") && Catch::Contains("No such file"));
  CHECK_THROWS_AS(CheckpointReader(dir.path()), c3::Error);
}

TEST_CASE("a writer destroyed without commit leaves nothing behind", "[ckpt_file]") {
  TmpDir dir;
  const std::string path = dir / "rank.0.c3";
  {
    CheckpointWriter w(path, sample_header());
    w.add_section(SectionKind::Meta, "abc", 3);
    REQUIRE(exists(path + ".tmp"));
  }
  CHECK_FALSE(exists(path + ".tmp"));
  CHECK_FALSE(exists(path));

  // Also when the exception that abandons it comes from the caller.
  try {
    CheckpointWriter w(path, sample_header());
    throw std::runtime_error("caller gave up");
  } catch (const std::runtime_error &) {
  }
  CHECK_FALSE(exists(path + ".tmp"));
  CHECK_FALSE(exists(path));
}

TEST_CASE("commit replaces an older file atomically", "[ckpt_file]") {
  TmpDir dir;
  const std::string path = dir / "rank.0.c3";
  write_small_checkpoint(path);
  {
    CheckpointWriter w(path, sample_header());
    w.add_section(SectionKind::Meta, "new", 3);
    // Until commit the old file is intact.
    CHECK(CheckpointReader(path).sections().size() == 5);
    w.commit();
  }
  CheckpointReader r(path);
  REQUIRE(r.sections().size() == 1);
  CHECK(text(r.sections()[0]) == "new");
}

TEST_CASE("writer misuse is refused", "[ckpt_file]") {
  TmpDir dir;
  FileHeader bad_rank = sample_header(4, 4);
  CHECK_THROWS_AS(CheckpointWriter(dir / "a", bad_rank), c3::Error);
  CHECK_FALSE(exists(dir / "a.tmp"));
  FileHeader long_id = sample_header();
  long_id.build_id.assign(300, 'x');
  CHECK_THROWS_AS(CheckpointWriter(dir / "b", long_id), c3::Error);
  CHECK_FALSE(exists(dir / "b.tmp"));

  CheckpointWriter w(dir / "c", sample_header());
  CHECK_THROWS_AS(w.add_section(SectionKind::End, "x", 1), c3::Error);
  w.commit();
  CHECK_THROWS_WITH(w.add_section(SectionKind::Meta, "x", 1), Catch::Contains("committed"));
  CHECK_THROWS_AS(w.commit(), c3::Error);
  CHECK_NOTHROW(CheckpointReader(dir / "c"));
}

TEST_CASE("a writer in a missing directory reports the path", "[ckpt_file]") {
  TmpDir dir;
  CHECK_THROWS_WITH(CheckpointWriter(dir / "no/such/rank.0.c3", sample_header()),
                    Catch::Contains("no/such/rank.0.c3.tmp") &&
                        Catch::Contains("No such file or directory"));
}

TEST_CASE("a full device (ENOSPC) is reported as c3::Error", "[ckpt_file]") {
  // The writer opens final_path + ".tmp" without O_NOFOLLOW, so a symlink there makes it write
  // to /dev/full, where every write fails with ENOSPC: the real error path, not a mock.
  TmpDir dir;
  const std::string path = dir / "rank.0.c3";
  REQUIRE(::symlink("/dev/full", (path + ".tmp").c_str()) == 0);
  CHECK_THROWS_WITH(CheckpointWriter(path, sample_header()),
                    Catch::Contains(path + ".tmp") &&
                        Catch::Contains("No space left on device"));
  CHECK_FALSE(exists(path + ".tmp"));  // cleaned up: the writer unlinked its tmp name
  CHECK_FALSE(exists(path));
}

namespace {

// Runs in a child process: a 1 MiB tmpfs in a private mount namespace fills up halfway through
// a section. Returns 0 on the expected behaviour, 77 if a tmpfs cannot be mounted here, and
// another code naming the failed check otherwise.
bool write_text(const char *path, const std::string &content) {
  const int fd = ::open(path, O_WRONLY);
  if (fd < 0) return false;
  const bool ok = ::write(fd, content.data(), content.size()) == ssize_t(content.size());
  ::close(fd);
  return ok;
}

// Root gets a private mount namespace directly; anyone else through a user namespace in which
// they are root.
bool enter_private_mount_namespace() {
  if (::unshare(CLONE_NEWNS) == 0) return true;
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
  return write_text("/proc/self/setgroups", "deny") &&
         write_text("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") &&
         write_text("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
}

int fill_small_tmpfs(const std::string &mount_point) {
  if (!enter_private_mount_namespace()) return 77;
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 77;
  if (::mount("c3test", mount_point.c_str(), "tmpfs", 0, "size=1m") != 0) return 77;
  const std::string path = mount_point + "/rank.0.c3";
  std::vector<uint8_t> chunk(600 << 10, 0x33);
  try {
    CheckpointWriter w(path, sample_header());
    w.add_section(SectionKind::Heap, chunk.data(), chunk.size());  // fits
    try {
      w.add_section(SectionKind::Heap, chunk.data(), chunk.size());  // does not
      return 10;
    } catch (const c3::Error &e) {
      if (std::string(e.what()).find("No space left on device") == std::string::npos) return 11;
      if (std::string(e.what()).find(path + ".tmp") == std::string::npos) return 12;
    }
    try {
      w.commit();
      return 13;  // a failed writer must not commit
    } catch (const c3::Error &) {
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "unexpected: %s\n", e.what());
    return 14;
  }
  if (exists(path + ".tmp") || exists(path)) return 15;
  return 0;
}

}  // namespace

TEST_CASE("a filesystem filling up in the middle of a section is reported", "[ckpt_file]") {
  TmpDir dir;
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(fill_small_tmpfs(dir.path()));
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    WARN("cannot mount a tmpfs here (no privileges): covered by the /dev/full test only");
    return;
  }
  CHECK(WEXITSTATUS(status) == 0);
}
