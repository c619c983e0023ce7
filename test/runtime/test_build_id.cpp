// Build-id lookup: note parsing on hand-made buffers, and the running test binary's own id.
#include <elf.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "store/build_id.hpp"

using namespace c3;

namespace {
// Appends one ELF note (4-byte alignment of name and descriptor).
void add_note(std::vector<uint8_t> &buf, uint32_t type, const std::string &name,
              const std::string &desc, size_t align = 4) {
  auto pad = [&](size_t n) { return (n + align - 1) / align * align; };
  uint32_t hdr[3] = {uint32_t(name.size()), uint32_t(desc.size()), type};
  size_t at = buf.size();
  buf.resize(at + 12 + pad(name.size()) + pad(desc.size()));
  std::memcpy(&buf[at], hdr, 12);
  std::memcpy(&buf[at + 12], name.data(), name.size());
  std::memcpy(&buf[at + 12 + pad(name.size())], desc.data(), desc.size());
}
}  // namespace

TEST_CASE("build id: found after other notes") {
  std::vector<uint8_t> buf;
  add_note(buf, 1, std::string("GNU\0", 4), std::string(16, 'a'));  // NT_GNU_ABI_TAG
  add_note(buf, NT_GNU_BUILD_ID, std::string("GNU\0", 4), "\x01\x02\x03\x04\x05");
  auto id = find_gnu_build_id(buf.data(), buf.size(), 4);
  REQUIRE(id);
  CHECK(to_hex(*id) == "0102030405");
}

TEST_CASE("build id: 8-byte aligned notes") {
  std::vector<uint8_t> buf;
  add_note(buf, 5, std::string("GNU\0", 4), "abc", 8);
  add_note(buf, NT_GNU_BUILD_ID, std::string("GNU\0", 4), "xyz", 8);
  auto id = find_gnu_build_id(buf.data(), buf.size(), 8);
  REQUIRE(id);
  CHECK(*id == "xyz");
}

TEST_CASE("build id: wrong owner, missing and truncated notes give nothing") {
  std::vector<uint8_t> buf;
  add_note(buf, NT_GNU_BUILD_ID, std::string("LLVM", 4), "zz");
  CHECK_FALSE(find_gnu_build_id(buf.data(), buf.size(), 4));
  std::vector<uint8_t> good;
  add_note(good, NT_GNU_BUILD_ID, std::string("GNU\0", 4), std::string(20, '\x7f'));
  for (size_t cut = 0; cut < good.size(); ++cut)
    CHECK_FALSE(find_gnu_build_id(good.data(), cut, 4));
  CHECK(find_gnu_build_id(good.data(), good.size(), 4));
  // A descriptor size running past the end.
  uint32_t huge = 0xfffffff0u;
  std::memcpy(&good[4], &huge, 4);
  CHECK_FALSE(find_gnu_build_id(good.data(), good.size(), 4));
}

TEST_CASE("build id: the test binary's id matches readelf") {
  const std::string &id = executable_build_id();
  REQUIRE_FALSE(id.empty());
  CHECK(&id == &executable_build_id());  // cached
  // The toolchain links with --build-id, so this is the note, not the fallback hash.
  REQUIRE(id.compare(0, 4, "exe:") != 0);
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  REQUIRE(n > 0);
  path[n] = 0;
  std::string cmd = std::string("readelf -n '") + path + "' | sed -n 's/.*Build ID: //p'";
  FILE *r = popen(cmd.c_str(), "r");
  REQUIRE(r);
  char line[256] = {0};
  bool got = fgets(line, sizeof line, r) != nullptr;
  pclose(r);
  if (got) {
    std::string expected(line);
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == ' '))
      expected.pop_back();
    CHECK(to_hex(id) == expected);
  } else {
    WARN("readelf not available; only checked that an id was found");
  }
}

TEST_CASE("build id: content hash differs for different bytes") {
  std::string a = "hello world", b = "hello worle";
  auto ha = content_hash(reinterpret_cast<const uint8_t *>(a.data()), a.size());
  auto hb = content_hash(reinterpret_cast<const uint8_t *>(b.data()), b.size());
  CHECK(ha.size() == 16);
  CHECK(ha != hb);
  CHECK(ha == content_hash(reinterpret_cast<const uint8_t *>(a.data()), a.size()));
}
