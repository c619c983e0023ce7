// Globals registered in section "c3_globals": two arrays of three 24-byte records, as two
// translation units would emit them. Each array is aligned to 16 or 32 bytes, so the section has
// padding between them that the runtime must skip.
#include <catch2/catch.hpp>
#include <cstring>

#include "memory/globals.hpp"

namespace {
long g_a = 1, g_b = 2, g_c = 3;
double g_d[4] = {1, 2, 3, 4};
char g_e[3] = "xy";
int g_f = 6;

__attribute__((section("c3_globals"), used)) struct __c3_global first_unit[] = {
    {&g_a, sizeof g_a, "a"}, {&g_b, sizeof g_b, "b"}, {&g_c, sizeof g_c, "c"}};
__attribute__((section("c3_globals"), used)) struct __c3_global second_unit[] = {
    {&g_d, sizeof g_d, "d"}, {&g_e, sizeof g_e, "e"}, {&g_f, sizeof g_f, "f"}};
}  // namespace

TEST_CASE("globals: records from every unit are found despite alignment padding") {
  auto regs = c3::globals::registered();
  REQUIRE(regs.size() == 6);
  for (const void *addr : {(const void *)&g_a, (const void *)&g_b, (const void *)&g_c,
                           (const void *)&g_d, (const void *)&g_e, (const void *)&g_f}) {
    bool found = false;
    for (const auto &g : regs) found |= g.addr == addr;
    CHECK(found);
  }
  for (size_t i = 1; i < regs.size(); ++i) CHECK(regs[i - 1].addr < regs[i].addr);
}

TEST_CASE("globals: save, change, validate, restore") {
  c3::MemoryImageBuilder img;
  c3::globals::add_to_image(img);
  std::string flat;
  for (const iovec &v : img.pieces()) flat.append(static_cast<const char *>(v.iov_base), v.iov_len);
  c3::SectionView view{uint32_t(c3::SectionKind::Globals),
                       reinterpret_cast<const uint8_t *>(flat.data()), flat.size()};
  auto saved = c3::decode_memory_image(view, "f");
  g_a = 100;
  g_d[3] = -1;
  std::strcpy(g_e, "zz");
  CHECK_NOTHROW(c3::globals::validate_saved(saved));
  c3::globals::restore(saved);
  CHECK(g_a == 1);
  CHECK(g_d[3] == 4);
  CHECK(std::string(g_e) == "xy");

  auto fewer = saved;
  fewer.pop_back();
  CHECK_THROWS_WITH(c3::globals::validate_saved(fewer), Catch::Contains("holds 5 globals"));
  auto moved = saved;
  moved[0].size += 8;
  CHECK_THROWS_WITH(c3::globals::validate_saved(moved), Catch::Contains("differ"));
}

TEST_CASE("globals: within_one tells whether a range lies inside one registered global") {
  using c3::globals::within_one;
  const char *d = reinterpret_cast<const char *>(g_d);
  CHECK(within_one(d, sizeof g_d));
  CHECK(within_one(d + 4, 5));  // bytes before an interior buffer and its first byte
  CHECK(within_one(d + sizeof g_d - 1, 1));
  CHECK_FALSE(within_one(d + sizeof g_d - 4, 5));  // runs past the end
  const auto before_d = reinterpret_cast<const void *>(reinterpret_cast<uintptr_t>(d) - 4);
  CHECK_FALSE(within_one(before_d, 5));  // starts before it
  CHECK(within_one(&g_f, sizeof g_f));
  CHECK_FALSE(within_one(&g_f, sizeof g_f + 1));
  static char unregistered[16];
  CHECK_FALSE(within_one(unregistered + 4, 5));
  int on_stack = 0;
  CHECK_FALSE(within_one(&on_stack, 1));
}
