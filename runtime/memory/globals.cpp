#include "memory/globals.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "support/error.hpp"

// Defined by the linker when some object has a "c3_globals" section; weak so that a program
// without globals links (both are then null).
extern "C" {
extern const struct __c3_global __start_c3_globals[] __attribute__((weak));
extern const struct __c3_global __stop_c3_globals[] __attribute__((weak));
}

namespace c3::globals {
namespace {
std::string describe(uintptr_t address, uint64_t size, const char *name) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%lx, %lu bytes", static_cast<unsigned long>(address),
                static_cast<unsigned long>(size));
  return name ? std::string("'") + name + "' (" + buf + ")" : std::string("(") + buf + ")";
}
}  // namespace

std::vector<__c3_global> registered() {
  std::vector<__c3_global> out;
  if (!__start_c3_globals || !__stop_c3_globals) return out;
  // Each translation unit contributes one array, and the ABI aligns arrays of 16 bytes or more
  // to 16 (GCC at -O2: 32), so the linker may leave zero padding between arrays. Records are
  // 8-aligned and never have a null address: a zero word is padding.
  auto at = reinterpret_cast<uintptr_t>(__start_c3_globals);
  const auto end = reinterpret_cast<uintptr_t>(__stop_c3_globals);
  while (end - at >= sizeof(__c3_global)) {
    __c3_global g;
    std::memcpy(&g, reinterpret_cast<const void *>(at), sizeof g);
    if (!g.addr) {
      at += sizeof(void *);
      continue;
    }
    if (g.size) out.push_back(g);
    at += sizeof g;
  }
  std::sort(out.begin(), out.end(), [](const __c3_global &a, const __c3_global &b) {
    return a.addr != b.addr ? a.addr < b.addr : a.size < b.size;
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const __c3_global &a, const __c3_global &b) {
                          return a.addr == b.addr && a.size == b.size;
                        }),
            out.end());
  return out;
}

bool within_one(const void *p, size_t n) {
  static const std::vector<__c3_global> table = registered();
  const auto at = reinterpret_cast<uintptr_t>(p);
  // The last global starting at or below p (of those starting at one address, the largest).
  auto after = std::upper_bound(table.begin(), table.end(), at, [](uintptr_t a, const __c3_global &g) {
    return a < reinterpret_cast<uintptr_t>(g.addr);
  });
  if (after == table.begin()) return false;
  const __c3_global &g = *(after - 1);
  const auto start = reinterpret_cast<uintptr_t>(g.addr);
  return at - start <= g.size && n <= g.size - (at - start);
}

void add_to_image(MemoryImageBuilder &image) {
  for (const __c3_global &g : registered()) image.add(g.addr, g.size);
}

void validate_saved(const std::vector<MemoryPiece> &saved) {
  std::vector<__c3_global> mine = registered();
  size_t n = std::min(mine.size(), saved.size());
  for (size_t i = 0; i < n; ++i) {
    auto addr = reinterpret_cast<uintptr_t>(mine[i].addr);
    if (addr != saved[i].address || mine[i].size != saved[i].size)
      throw Error("the checkpoint's globals differ from this program's: global " +
                  describe(addr, mine[i].size, mine[i].name) + " vs saved " +
                  describe(saved[i].address, saved[i].size, nullptr));
  }
  if (mine.size() != saved.size())
    throw Error("the checkpoint holds " + std::to_string(saved.size()) +
                " globals, this program registers " + std::to_string(mine.size()));
}

void restore(const std::vector<MemoryPiece> &saved) {
  for (const MemoryPiece &p : saved)
    std::memcpy(reinterpret_cast<void *>(p.address), p.bytes, p.size);
}

}  // namespace c3::globals
