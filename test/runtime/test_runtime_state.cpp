// RUNTIME section (Boost.Serialization), memory images, META text and the application API.
#include <catch2/catch.hpp>
#include <cstring>

#include "c3/c3.h"
#include "lifecycle/checkpoint.hpp"
#include "support/error.hpp"
#include "store/memory_image.hpp"
#include "lifecycle/runtime_state.hpp"
#include "support/text_format.hpp"

using namespace c3;

TEST_CASE("runtime state: round trip") {
  PersistentState s;
  s.last_checkpoint = 7;
  s.checkpoints_taken = 9;
  s.bytes_written = 123456789;
  s.app_argc = 3;
  s.app_argv = 0x500000001000;
  s.app_environ = 0x500000003000;
  s.random_state = 0x500000004000;
  s.atexit_handlers = {0x401100, 0x401200};
  s.on_restart.push_back({0x401000, 0x500000002000});
  s.on_restart.push_back({0x401234, 0});
  std::string bytes = encode_persistent_state(s);
  PersistentState back = decode_persistent_state(bytes.data(), bytes.size(), "f");
  CHECK(back.last_checkpoint == 7);
  CHECK(back.checkpoints_taken == 9);
  CHECK(back.bytes_written == 123456789);
  CHECK(back.app_argc == 3);
  CHECK(back.app_argv == 0x500000001000);
  CHECK(back.app_environ == 0x500000003000);
  CHECK(back.random_state == 0x500000004000);
  CHECK(back.atexit_handlers == std::vector<uintptr_t>{0x401100, 0x401200});
  REQUIRE(back.on_restart.size() == 2);
  CHECK(back.on_restart[1].function == 0x401234);
  CHECK(back.on_restart[0].arg == 0x500000002000);
}

TEST_CASE("runtime state: garbage is reported as a damaged checkpoint") {
  std::string junk = "this is not an archive";
  CHECK_THROWS_AS(decode_persistent_state(junk.data(), junk.size(), "f"), CorruptCheckpoint);
  PersistentState s;
  std::string bytes = encode_persistent_state(s);
  CHECK_THROWS_AS(decode_persistent_state(bytes.data(), bytes.size() / 2, "f"), CorruptCheckpoint);
  s.atexit_handlers.assign(kMaxAtexitHandlers + 1, 0x401000);  // more than a run can register
  bytes = encode_persistent_state(s);
  CHECK_THROWS_AS(decode_persistent_state(bytes.data(), bytes.size(), "f"), CorruptCheckpoint);
}

TEST_CASE("memory image: round trip, zero-sized pieces, and damage") {
  int a[3] = {1, 2, 3};
  char b[5] = "abcd";
  MemoryImageBuilder img;
  img.add(a, sizeof a);
  img.add(b, 0);
  img.add(b, sizeof b);
  CHECK(img.count() == 3);
  CHECK(img.data_bytes() == sizeof a + sizeof b);
  std::string flat;
  for (const iovec &v : img.pieces()) flat.append(static_cast<const char *>(v.iov_base), v.iov_len);
  SectionView view{uint32_t(SectionKind::Globals), reinterpret_cast<const uint8_t *>(flat.data()),
                   flat.size()};
  auto pieces = decode_memory_image(view, "f");
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].address == reinterpret_cast<uintptr_t>(a));
  CHECK(std::memcmp(pieces[0].bytes, a, sizeof a) == 0);
  CHECK(pieces[1].size == 0);
  CHECK(std::memcmp(pieces[2].bytes, "abcd", 5) == 0);
  view.size -= 1;
  CHECK_THROWS_AS(decode_memory_image(view, "f"), CorruptCheckpoint);
  view.size += 2;  // trailing byte
  flat.push_back('x');
  view.data = reinterpret_cast<const uint8_t *>(flat.data());
  CHECK_THROWS_AS(decode_memory_image(view, "f"), CorruptCheckpoint);
  uint64_t huge_count = ~0ull;
  std::memcpy(&flat[0], &huge_count, 8);
  CHECK_THROWS_AS(decode_memory_image(view, "f"), CorruptCheckpoint);
}

TEST_CASE("meta: key=value lines") {
  std::string text = checkpoint::encode_meta({{"checkpoint", "3"}, {"where", "a.c:1\nb"}});
  CHECK(text == "checkpoint=3\nwhere=a.c:1 b\n");
  auto back = checkpoint::decode_meta(text);
  CHECK(back.at("checkpoint") == "3");
  CHECK(back.at("where") == "a.c:1 b");
}

TEST_CASE("human-readable sizes") {
  CHECK(human_bytes(0) == "0 B");
  CHECK(human_bytes(1023) == "1023 B");
  CHECK(human_bytes(1536) == "1.5 KiB");
  CHECK(human_bytes(uint64_t(12.4 * 1048576)) == "12.4 MiB");
  CHECK(human_bytes(uint64_t(3) << 30) == "3.0 GiB");
}

namespace {
void noop(void *) {}
}  // namespace

TEST_CASE("app API: restart callbacks are limited to 16") {
  persistent_state().on_restart.clear();
  for (int i = 0; i < 16; ++i) CHECK(c3_on_restart(noop, nullptr) == 0);
  CHECK(c3_on_restart(noop, nullptr) == -1);
  CHECK(c3_on_restart(nullptr, nullptr) == -1);
  CHECK(persistent_state().on_restart.size() == 16);
  persistent_state().on_restart.clear();
  CHECK(c3_restarting() == 0);
  CHECK(c3_restart_checkpoint() == 0);
}
