// The application heap arena: allocation API, randomized stress against a shadow model, memory
// return, corruption detection, libc forwarding, and the checkpoint/restore round trip.
// The test binary is one process, so every test shares the one arena at the default base.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "c3/c3_abi.h"
#include "support/error.hpp"
#include "memory/heap_arena.hpp"

namespace heap = c3::heap;

namespace {

void ensure_heap() { heap::init(heap::kDefaultBase, heap::kDefaultReserve); }

uintptr_t addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }

bool aligned(const void *p, size_t a) { return addr(p) % a == 0; }

// ---- shadow model: every live block remembers its size and an id; its bytes hold a pattern
// derived from the id (id in the first and last 8 bytes, a fill byte elsewhere) ----

struct Block {
  unsigned char *p = nullptr;
  size_t size = 0;
  uint64_t id = 0;
};

unsigned char fill_byte(uint64_t id) { return static_cast<unsigned char>(id * 0x9d + 1); }

unsigned char expected_byte(const Block &b, size_t i) {
  if (b.size >= 8 && i < 8) return static_cast<unsigned char>(b.id >> (8 * i));
  if (b.size >= 16 && i >= b.size - 8) return static_cast<unsigned char>(b.id >> (8 * (i - (b.size - 8))));
  return fill_byte(b.id);
}

void fill(const Block &b) {
  std::memset(b.p, fill_byte(b.id), b.size);
  if (b.size >= 8) std::memcpy(b.p, &b.id, 8);
  if (b.size >= 16) std::memcpy(b.p + b.size - 8, &b.id, 8);
}

// True when bytes [0, limit) of b.p hold b's pattern.
bool holds_pattern(const Block &b, size_t limit) {
  size_t edge = std::min<size_t>(limit, 16);
  for (size_t i = 0; i < edge; ++i)
    if (b.p[i] != expected_byte(b, i)) return false;
  size_t mid_end = b.size >= 16 ? std::min(limit, b.size - 8) : limit;
  uint64_t word;
  std::memset(&word, fill_byte(b.id), 8);
  size_t i = edge;
  for (; i + 8 <= mid_end; i += 8) {
    uint64_t got;
    std::memcpy(&got, b.p + i, 8);
    if (got != word) return false;
  }
  for (; i < limit; ++i)
    if (b.p[i] != expected_byte(b, i)) return false;
  return true;
}

bool all_zero(const void *p, size_t n) {
  const unsigned char *c = static_cast<const unsigned char *>(p);
  for (size_t i = 0; i < n; ++i)
    if (c[i]) return false;
  return true;
}

size_t log_uniform(std::mt19937_64 &rng, size_t lo, size_t hi) {
  std::uniform_real_distribution<double> d(std::log(double(lo)), std::log(double(hi)));
  return static_cast<size_t>(std::exp(d(rng)));
}

// Mostly small blocks, some up to 1 MiB, a thin tail up to 32 MiB.
size_t random_size(std::mt19937_64 &rng) {
  unsigned u = rng() % 1000;
  if (u < 600) return 1 + rng() % 128;
  if (u < 940) return 1 + rng() % 4096;
  if (u < 998) return log_uniform(rng, 4096, size_t(1) << 20);
  return log_uniform(rng, size_t(1) << 20, size_t(32) << 20);
}

// The block holds size bytes and wastes little: a big free block is split, not handed out whole.
bool fits_tightly(void *p, size_t size) {
  size_t usable = __c3_malloc_usable_size(p);
  return usable >= size && usable < size + 48;
}

// Random allocate/free/realloc steps on the c3 API, checked against the shadow model.
class Shadow {
 public:
  explicit Shadow(size_t slots, uint64_t seed) : slots_(slots), rng_(seed) {}

  void run(size_t steps) {
    for (size_t s = 0; s < steps; ++s) step();
  }

  // Checks every live block's bytes; returns the number of bad blocks.
  size_t check_all() const {
    size_t bad = 0;
    for (const Block &b : slots_)
      if (b.p && !holds_pattern(b, b.size)) ++bad;
    return bad;
  }

  void free_all() {
    for (Block &b : slots_) {
      if (!b.p) continue;
      CHECK(holds_pattern(b, b.size));
      __c3_free(b.p);
      b = Block{};
    }
  }

  size_t live() const {
    size_t n = 0;
    for (const Block &b : slots_) n += b.p != nullptr;
    return n;
  }

  size_t failures = 0;  // pattern or alignment mismatches seen during steps

 private:
  void step() {
    Block &b = slots_[rng_() % slots_.size()];
    if (!b.p)
      allocate(b);
    else
      change(b);
  }

  void allocate(Block &b) {
    size_t size = random_size(rng_);
    b.id = ++next_id_;
    unsigned kind = rng_() % 10;
    void *p = nullptr;
    size_t align = 16;
    if (kind < 6) {
      p = __c3_malloc(size);
    } else if (kind < 7) {
      p = __c3_calloc(1 + size / 8, 8);
      size = (1 + size / 8) * 8;
      if (p && !all_zero(p, size)) ++failures;
    } else if (kind < 9) {
      align = size_t(32) << (rng_() % 8);
      if (kind == 7) {
        p = __c3_aligned_alloc(align, size);
      } else if (__c3_posix_memalign(&p, align, size) != 0) {
        p = nullptr;
      }
    } else {
      p = __c3_realloc(nullptr, size);
    }
    if (!p || !aligned(p, align) || !heap::contains(p) || !fits_tightly(p, size)) {
      ++failures;
      return;
    }
    b.p = static_cast<unsigned char *>(p);
    b.size = size;
    fill(b);
  }

  void change(Block &b) {
    if (!holds_pattern(b, b.size)) ++failures;
    unsigned kind = rng_() % 20;
    if (kind < 9) {
      __c3_free(b.p);
      b = Block{};
    } else if (kind < 17) {
      // Half of the reallocs nudge the size a little, which exercises growing in place.
      size_t size = kind < 13 ? random_size(rng_) : b.size + rng_() % 256 - std::min<size_t>(b.size - 1, 64);
      void *q = __c3_realloc(b.p, size);
      if (!q || !aligned(q, 16)) {
        ++failures;
        return;
      }
      b.p = static_cast<unsigned char *>(q);
      if (!holds_pattern(b, std::min(b.size, size)) || !fits_tightly(q, size)) ++failures;
      b.size = size;
      b.id = ++next_id_;
      fill(b);
    } else if (kind < 18) {
      REQUIRE(__c3_realloc(b.p, 0) == nullptr);  // frees, like glibc
      b = Block{};
    } else {
      if (!fits_tightly(b.p, b.size)) ++failures;
    }
  }

  std::vector<Block> slots_;
  std::mt19937_64 rng_;
  uint64_t next_id_ = 0;
};

struct ChildResult {
  int signal;     // terminating signal, 0 if it exited
  int exit_code;  // when it exited
  std::string output;
};

// Runs fn in a child process with stderr (and, if asked, stdout) captured.
ChildResult run_in_child(const std::function<void()> &fn, bool capture_stdout = false) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    // Catch2's fatal-signal reporting must not run in the child.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) signal(sig, SIG_DFL);
    dup2(fds[1], 2);
    if (capture_stdout) dup2(fds[1], 1);
    fn();
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return {WIFSIGNALED(status) ? WTERMSIG(status) : 0, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
          text};
}

std::string hex_pointer(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

// Number of resident pages in [lo, hi) (page-aligned inwards).
size_t resident_pages(uintptr_t lo, uintptr_t hi) {
  const size_t page = 4096;
  lo = (lo + page - 1) & ~(page - 1);
  hi &= ~(page - 1);
  if (lo >= hi) return 0;
  std::vector<unsigned char> vec((hi - lo) / page);
  REQUIRE(mincore(reinterpret_cast<void *>(lo), hi - lo, vec.data()) == 0);
  size_t n = 0;
  for (unsigned char v : vec) n += v & 1;
  return n;
}

size_t extents_bytes(const std::vector<heap::Extent> &extents) {
  size_t n = 0;
  for (const auto &e : extents) n += e.size;
  return n;
}

}  // namespace

TEST_CASE("heap: init maps the default range once and refuses another", "[heap]") {
  ensure_heap();
  ensure_heap();  // idempotent
  REQUIRE(heap::initialized());
  void *p = __c3_malloc(10);
  REQUIRE(addr(p) > heap::kDefaultBase);
  REQUIRE(addr(p) < heap::kDefaultBase + heap::kDefaultReserve);
  REQUIRE(heap::contains(p));
  int on_stack = 0;
  REQUIRE_FALSE(heap::contains(&on_stack));
  REQUIRE_FALSE(heap::contains(reinterpret_cast<void *>(heap::kDefaultBase + heap::kDefaultReserve)));
  __c3_free(p);
  try {
    heap::init(0x600000000000ull, size_t(1) << 30);
    FAIL("init with a second range must throw");
  } catch (const c3::Error &e) {
    REQUIRE_THAT(e.what(), Catch::StartsWith("cannot map the c3 heap at 0x600000000000 (1 GiB): "));
  }
  REQUIRE_NOTHROW(heap::verify());
}

// Runs in a fresh process (started by the test below): nothing is mapped there yet, so the
// heap's own mmap meets the conflicting mapping.
TEST_CASE("heap child: init over a range in use", "[.heap-conflict-child]") {
  REQUIRE_FALSE(heap::initialized());
  void *squatter = mmap(reinterpret_cast<void *>(heap::kDefaultBase + (size_t(1) << 30)), 4096,
                        PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  REQUIRE(squatter != MAP_FAILED);
  try {
    heap::init(heap::kDefaultBase, heap::kDefaultReserve);
    FAIL("init over a mapped range must throw");
  } catch (const c3::Error &e) {
    REQUIRE(std::string(e.what()) ==
            "cannot map the c3 heap at 0x500000000000 (64 GiB): the address range is already in use");
  }
  REQUIRE_FALSE(heap::initialized());
  REQUIRE_FALSE(heap::contains(reinterpret_cast<void *>(heap::kDefaultBase + 4096)));
}

TEST_CASE("heap child: malloc before init maps the default arena", "[.heap-lazy-init-child]") {
  REQUIRE_FALSE(heap::initialized());
  REQUIRE_FALSE(heap::contains(nullptr));
  void *p = __c3_malloc(100);
  REQUIRE(heap::initialized());
  REQUIRE(heap::contains(p));
  REQUIRE(addr(p) > heap::kDefaultBase);
  REQUIRE(heap::stats().blocks_in_use == 1);
  __c3_free(p);
  REQUIRE(heap::stats().blocks_in_use == 0);
  REQUIRE_NOTHROW(heap::init(heap::kDefaultBase, heap::kDefaultReserve));  // same range: no-op
}

// Runs one hidden test case of this binary in a fresh process (nothing mapped yet).
static void run_fresh_test(const char *spec) {
  ChildResult child = run_in_child(
      [spec] {
        execl("/proc/self/exe", "c3rt_tests", spec, static_cast<char *>(nullptr));
        _exit(126);
      },
      true);
  INFO(child.output);
  REQUIRE(child.signal == 0);
  REQUIRE(child.exit_code == 0);
  REQUIRE_THAT(child.output, Catch::Contains("1 test case"));
}

TEST_CASE("heap: a range already in use is refused with a clear message", "[heap]") {
  run_fresh_test("[.heap-conflict-child]");
}

TEST_CASE("heap: the first malloc maps the arena when the runtime did not", "[heap]") {
  run_fresh_test("[.heap-lazy-init-child]");
}

TEST_CASE("heap: blocks of 4 KiB or more start at a multiple of 64 bytes", "[heap]") {
  // Large blocks hold messages: MPICH/UCX copies a large message between processes at a fraction
  // of the speed when the two buffers differ modulo 64 (heap_arena.cpp, kLargeAlign).
  ensure_heap();
  std::vector<void *> blocks;
  for (size_t n : {size_t(4096), size_t(4097), size_t(5000), size_t(65536), size_t(131072 + 16),
                   size_t(3) << 20}) {
    for (int round = 0; round < 3; ++round) {
      void *small = __c3_malloc(16 * size_t(round + 1));  // varies where the next block starts
      void *p = __c3_malloc(n);
      REQUIRE(aligned(p, 64));
      REQUIRE(fits_tightly(p, n));
      void *q = __c3_calloc(n, 1);
      REQUIRE(aligned(q, 64));
      REQUIRE(all_zero(q, n));
      void *r = __c3_realloc(__c3_malloc(100), n);  // moves: a new large block
      REQUIRE(aligned(r, 64));
      void *m = __c3_memalign(32, n);
      REQUIRE(aligned(m, 64));
      blocks.insert(blocks.end(), {small, p, q, r, m});
    }
  }
  REQUIRE(aligned(__c3_malloc(4095), 16));  // smaller blocks keep glibc's 16
  for (void *p : blocks) __c3_free(p);
  REQUIRE_NOTHROW(heap::verify());
}

TEST_CASE("heap: every allocation function returns aligned arena memory", "[heap]") {
  ensure_heap();
  std::vector<void *> blocks;
  for (size_t n = 0; n <= 2100; n += (n < 64 ? 1 : 37)) {
    void *p = __c3_malloc(n);
    REQUIRE(p != nullptr);
    REQUIRE(aligned(p, 16));
    REQUIRE(heap::contains(p));
    REQUIRE(__c3_malloc_usable_size(p) >= n);
    blocks.push_back(p);
    void *q = __c3_calloc(n, 3);
    REQUIRE(aligned(q, 16));
    REQUIRE(all_zero(q, 3 * n));
    blocks.push_back(q);
  }
  for (size_t align = 1; align <= (size_t(1) << 21); align <<= 1) {
    for (size_t n : {size_t(1), size_t(100), size_t(5000), size_t(70000)}) {
      void *m = __c3_memalign(align, n);
      REQUIRE(m != nullptr);
      REQUIRE(aligned(m, std::max<size_t>(align, 16)));
      REQUIRE(__c3_malloc_usable_size(m) >= n);
      blocks.push_back(m);
      void *a = __c3_aligned_alloc(align, n);
      REQUIRE(a != nullptr);
      REQUIRE(aligned(a, std::max<size_t>(align, 16)));
      blocks.push_back(a);
      if (align >= sizeof(void *)) {
        void *pm = nullptr;
        REQUIRE(__c3_posix_memalign(&pm, align, n) == 0);
        REQUIRE(aligned(pm, std::max<size_t>(align, 16)));
        REQUIRE(heap::contains(pm));
        blocks.push_back(pm);
      }
    }
  }
  void *odd = __c3_memalign(48, 10);  // glibc rounds a non-power-of-two alignment up
  REQUIRE(aligned(odd, 64));
  blocks.push_back(odd);
  void *v = __c3_valloc(123);
  REQUIRE(aligned(v, 4096));
  blocks.push_back(v);
  char *s = __c3_strdup("checkpoint");
  REQUIRE(heap::contains(s));
  REQUIRE(std::string(s) == "checkpoint");
  REQUIRE(aligned(s, 16));
  blocks.push_back(s);
  char *sn = __c3_strndup("restart-me", 7);
  REQUIRE(std::string(sn) == "restart");
  blocks.push_back(sn);
  char *sn2 = __c3_strndup("ab", 100);
  REQUIRE(std::string(sn2) == "ab");
  blocks.push_back(sn2);
  void *r = __c3_realloc(nullptr, 77);
  REQUIRE(aligned(r, 16));
  r = __c3_realloc(r, 7777);
  REQUIRE(aligned(r, 16));
  blocks.push_back(r);
  void *ra = __c3_reallocarray(nullptr, 10, 10);
  REQUIRE(aligned(ra, 16));
  blocks.push_back(ra);
  REQUIRE_NOTHROW(heap::verify());
  for (void *p : blocks) __c3_free(p);
  REQUIRE_NOTHROW(heap::verify());
}

TEST_CASE("heap: malloc(0), free(NULL) and realloc edge cases follow glibc", "[heap]") {
  ensure_heap();
  void *a = __c3_malloc(0), *b = __c3_malloc(0);
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  REQUIRE(a != b);
  __c3_free(a);
  __c3_free(b);
  __c3_free(nullptr);
  REQUIRE(__c3_malloc_usable_size(nullptr) == 0);

  size_t blocks = heap::stats().blocks_in_use;
  void *p = __c3_malloc(100);
  REQUIRE(heap::stats().blocks_in_use == blocks + 1);
  REQUIRE(__c3_realloc(p, 0) == nullptr);  // frees p
  REQUIRE(heap::stats().blocks_in_use == blocks);

  // Shrinking keeps the block and frees its tail; growing back into that free tail is in place.
  unsigned char *x = static_cast<unsigned char *>(__c3_malloc(3200));
  for (int i = 0; i < 3200; ++i) x[i] = static_cast<unsigned char>(i * 7);
  unsigned char *x2 = static_cast<unsigned char *>(__c3_realloc(x, 1000));
  REQUIRE(x2 == x);
  REQUIRE(__c3_malloc_usable_size(x) < 1100);
  unsigned char *x3 = static_cast<unsigned char *>(__c3_realloc(x2, 2500));
  REQUIRE(x3 == x);
  for (int i = 0; i < 1000; ++i) REQUIRE(x3[i] == static_cast<unsigned char>(i * 7));
  REQUIRE_NOTHROW(heap::verify());
  __c3_free(x3);

  // A block bigger than any free block comes from the top and grows in place through the
  // reservation (nothing is touched, so nothing is committed).
  void *t = __c3_malloc(size_t(4) << 30);
  void *t2 = __c3_realloc(t, (size_t(4) << 30) + (size_t(8) << 20));
  REQUIRE(t2 == t);
  __c3_free(t2);
  REQUIRE_NOTHROW(heap::verify());
}

TEST_CASE("heap: calloc returns zeros, also in reused memory", "[heap]") {
  ensure_heap();
  for (size_t n : {size_t(24), size_t(3000), size_t(200000), size_t(3) << 20}) {
    void *fence_before = __c3_malloc(16);
    void *p = __c3_malloc(n);
    void *fence_after = __c3_malloc(16);
    std::memset(p, 0xab, n);
    __c3_free(p);
    void *q = __c3_calloc(n, 1);
    REQUIRE(q != nullptr);
    REQUIRE(all_zero(q, n));
    __c3_free(q);
    __c3_free(fence_before);
    __c3_free(fence_after);
  }
  // Memory at the top that was dirtied, freed and trimmed reads as zero, and so does fresh memory.
  void *big = __c3_malloc(size_t(16) << 20);
  std::memset(big, 0xcd, size_t(16) << 20);
  __c3_free(big);
  void *z = __c3_calloc(size_t(20) << 20, 1);
  REQUIRE(all_zero(z, size_t(20) << 20));
  __c3_free(z);
}

TEST_CASE("heap: allocation errors set errno like libc", "[heap]") {
  ensure_heap();
  errno = 0;
  REQUIRE(__c3_malloc(~0ul) == nullptr);
  REQUIRE(errno == ENOMEM);
  errno = 0;
  REQUIRE(__c3_malloc(heap::kDefaultReserve) == nullptr);  // more than the reservation
  REQUIRE(errno == ENOMEM);
  errno = 0;
  REQUIRE(__c3_calloc(size_t(1) << 33, size_t(1) << 33) == nullptr);  // overflows
  REQUIRE(errno == ENOMEM);

  void *p = __c3_malloc(32);
  std::memcpy(p, "keep", 5);
  errno = 0;
  REQUIRE(__c3_reallocarray(p, size_t(1) << 40, size_t(1) << 40) == nullptr);
  REQUIRE(errno == ENOMEM);
  errno = 0;
  REQUIRE(__c3_realloc(p, heap::kDefaultReserve) == nullptr);
  REQUIRE(errno == ENOMEM);
  REQUIRE(std::string(static_cast<char *>(p)) == "keep");  // the old block is intact
  __c3_free(p);

  void *out = reinterpret_cast<void *>(0x1234);
  REQUIRE(__c3_posix_memalign(&out, 3, 10) == EINVAL);
  REQUIRE(__c3_posix_memalign(&out, 0, 10) == EINVAL);
  REQUIRE(__c3_posix_memalign(&out, 4, 10) == EINVAL);  // not a multiple of sizeof(void *)
  errno = 0;
  REQUIRE(__c3_posix_memalign(&out, 64, heap::kDefaultReserve) == ENOMEM);
  REQUIRE(errno == 0);  // reported through the result only
  REQUIRE(out == reinterpret_cast<void *>(0x1234));

  errno = 0;
  REQUIRE(__c3_aligned_alloc(3, 10) == nullptr);
  REQUIRE(errno == EINVAL);
  errno = 0;
  REQUIRE(__c3_aligned_alloc(0, 10) == nullptr);
  REQUIRE(errno == EINVAL);
  errno = 0;
  REQUIRE(__c3_aligned_alloc(64, heap::kDefaultReserve) == nullptr);
  REQUIRE(errno == ENOMEM);
  REQUIRE_NOTHROW(heap::verify());
}

TEST_CASE("heap: pointers from libc are forwarded to libc", "[heap]") {
  ensure_heap();
  char *s = ::strdup("allocated by libc");
  REQUIRE_FALSE(heap::contains(s));
  REQUIRE(__c3_malloc_usable_size(s) == ::malloc_usable_size(s));

  // A 100 KB libc block (below glibc's mmap threshold) shows up in libc's accounting. Under
  // ASan mallinfo2 reports nothing; its leak check covers the frees instead.
  const bool libc_accounting = mallinfo2().arena != 0;
  size_t before = mallinfo2().uordblks;
  char *big = static_cast<char *>(::malloc(100000));
  big[0] = 'x';
  if (libc_accounting) REQUIRE(mallinfo2().uordblks >= before + 100000);
  big = static_cast<char *>(__c3_realloc(big, 90000));  // realloc'ed by libc
  REQUIRE_FALSE(heap::contains(big));
  REQUIRE(big[0] == 'x');
  __c3_free(big);
  if (libc_accounting) REQUIRE(mallinfo2().uordblks < before + 100000);

  size_t arena_blocks = heap::stats().blocks_in_use;
  __c3_free(s);
  REQUIRE(heap::stats().blocks_in_use == arena_blocks);
}

TEST_CASE("heap: double free and wild frees abort with a message", "[heap]") {
  ensure_heap();
  auto expect_corruption = [](const std::function<void *()> &make_bad_pointer) {
    ChildResult child = run_in_child([&] { __c3_free(make_bad_pointer()); });
    INFO("child exit code " << child.exit_code);
    CHECK(child.signal == SIGABRT);
    CHECK_THAT(child.output, Catch::StartsWith("c3: heap corruption: free(0x") &&
                                 Catch::EndsWith(") of a block not in use\n"));
  };
  void *fence = __c3_malloc(16);
  expect_corruption([] {
    void *p = __c3_malloc(40);
    __c3_free(p);
    return p;  // double free
  });
  // Double free of a block that merged with free neighbours on both sides. The child starts
  // from an emptied arena (reset, then formatted by the next malloc), so a..d are adjacent.
  expect_corruption([] {
    heap::reset_for_restore();
    char *a = static_cast<char *>(__c3_malloc(100)), *b = static_cast<char *>(__c3_malloc(100));
    char *c = static_cast<char *>(__c3_malloc(100)), *d = static_cast<char *>(__c3_malloc(100));
    if (b != a + 128 || c != b + 128 || d != c + 128) _exit(5);  // 100 + header, rounded to 16
    __c3_free(a);
    __c3_free(c);
    __c3_free(b);
    return static_cast<void *>(b);
  });
  // Double free of a block that merged into its free predecessor, after the merged block was
  // handed out again (the stale header inside it must not pass for a block).
  expect_corruption([] {
    heap::reset_for_restore();
    char *a = static_cast<char *>(__c3_malloc(100)), *b = static_cast<char *>(__c3_malloc(100));
    char *c = static_cast<char *>(__c3_malloc(100));
    if (b != a + 128 || c != b + 128) _exit(5);
    __c3_free(a);
    __c3_free(b);
    char *again = static_cast<char *>(__c3_malloc(240));  // exactly the merged 256 bytes
    if (again != a) _exit(6);
    return static_cast<void *>(b);
  });
  expect_corruption([] { return static_cast<char *>(__c3_malloc(400)) + 16; });  // interior
  // An interior pointer whose preceding bytes look like a block header that spans exactly to
  // the next real block is still refused: the header carries a tag user data lacks.
  expect_corruption([] {
    char *p = static_cast<char *>(__c3_malloc(400));  // a chunk of 416 bytes from p - 16
    uint64_t fake_word = (400 - 16) | 3;                 // size to the next block, in-use bits
    std::memcpy(p + 24, &fake_word, 8);
    return static_cast<void *>(p + 32);
  });
  expect_corruption([] { return static_cast<char *>(__c3_malloc(400)) + 8; });   // misaligned
  expect_corruption([] { return reinterpret_cast<void *>(heap::kDefaultBase + 64); });  // header
  expect_corruption([] {
    return reinterpret_cast<void *>(heap::kDefaultBase + (size_t(60) << 30));  // beyond top
  });
  // The message names the pointer.
  void *victim = __c3_malloc(8);
  ChildResult named = run_in_child([victim] {
    __c3_free(victim);
    __c3_free(victim);
  });
  REQUIRE(named.output == "c3: heap corruption: free(" + hex_pointer(victim) + ") of a block not in use\n");
  __c3_free(victim);
  ChildResult realloc_child = run_in_child([] {
    void *p = __c3_malloc(8);
    __c3_free(p);
    __c3_realloc(p, 100);
  });
  CHECK(realloc_child.signal == SIGABRT);
  CHECK_THAT(realloc_child.output, Catch::StartsWith("c3: heap corruption: realloc(0x"));
  __c3_free(fence);
  REQUIRE_NOTHROW(heap::verify());  // the parent's heap is untouched
}

TEST_CASE("heap: randomized stress against a shadow model", "[heap][stress]") {
  ensure_heap();
  heap::Stats before = heap::stats();
  Shadow shadow(2048, 20240611);
  for (int round = 0; round < 30; ++round) {
    shadow.run(10000);
    REQUIRE(shadow.failures == 0);
    REQUIRE_NOTHROW(heap::verify());
  }
  REQUIRE(shadow.check_all() == 0);
  shadow.free_all();
  heap::Stats after = heap::stats();
  REQUIRE(after.blocks_in_use == before.blocks_in_use);
  REQUIRE(after.bytes_in_use == before.bytes_in_use);
  REQUIRE_NOTHROW(heap::verify());
}

TEST_CASE("heap: freed memory coalesces and is reused", "[heap]") {
  ensure_heap();
  heap::Stats base = heap::stats();
  std::mt19937_64 rng(7);
  size_t biggest_cycle = 0;
  size_t high_after_first = 0;
  for (int cycle = 0; cycle < 20; ++cycle) {
    // Different sizes every cycle: without coalescing the fragments of one cycle would not fit
    // the next one and the heap would keep growing.
    std::vector<void *> blocks;
    size_t total = 0;
    for (int i = 0; i < 3000; ++i) {
      size_t n = 1 + rng() % (cycle % 2 ? 200 : 60000);
      total += n;
      void *p = __c3_malloc(n);
      std::memset(p, 0x5a, n);
      blocks.push_back(p);
    }
    biggest_cycle = std::max(biggest_cycle, total);
    std::shuffle(blocks.begin(), blocks.end(), rng);
    for (void *p : blocks) __c3_free(p);
    REQUIRE(heap::stats().blocks_in_use == base.blocks_in_use);
    if (cycle == 0) high_after_first = heap::stats().high_water;
  }
  REQUIRE(heap::stats().high_water <= std::max(high_after_first, base.high_water) + biggest_cycle);
  REQUIRE(heap::stats().high_water <= base.high_water + 2 * biggest_cycle);
  REQUIRE_NOTHROW(heap::verify());
}

TEST_CASE("heap: big frees give their pages back to the kernel", "[heap]") {
  ensure_heap();
  const size_t big = size_t(64) << 20;
  // A big block in the middle of the heap (a live block after it keeps it off the top).
  char *mid = static_cast<char *>(__c3_malloc(big));
  std::vector<void *> before_mid;  // free blocks of earlier tests take small requests first
  void *after = __c3_malloc(100);
  while (addr(after) < addr(mid)) before_mid.push_back(std::exchange(after, __c3_malloc(100)));
  std::memset(mid, 1, big);
  REQUIRE(resident_pages(addr(mid), addr(mid) + big) >= big / 4096 - 1);
  __c3_free(mid);
  REQUIRE(resident_pages(addr(mid), addr(mid) + big) <= 2);
  // Reusing part of it works and reads as the allocator promises (calloc zeroes).
  char *again = static_cast<char *>(__c3_calloc(1, big / 2));
  REQUIRE(all_zero(again, big / 2));
  __c3_free(again);
  __c3_free(after);
  for (void *p : before_mid) __c3_free(p);

  // A block bigger than any free block comes from the top: freeing it trims the pages above
  // top (only the last 64 MiB are touched; the reservation is not committed).
  const size_t huge = size_t(1) << 30;
  char *top_block = static_cast<char *>(__c3_malloc(huge));
  heap::Stats st = heap::stats();
  REQUIRE(st.high_water >= addr(top_block) + huge - heap::kDefaultBase);
  std::memset(top_block + huge - big, 2, big);
  REQUIRE(resident_pages(addr(top_block) + huge - big, addr(top_block) + huge) >= big / 4096 - 1);
  __c3_free(top_block);
  REQUIRE(resident_pages(addr(top_block) + (size_t(2) << 20), addr(top_block) + huge) == 0);
  REQUIRE_NOTHROW(heap::verify());
}

TEST_CASE("heap: saved extents leave out the interior of big free blocks", "[heap]") {
  ensure_heap();
  const size_t big = size_t(256) << 20;
  void *small_before = __c3_malloc(1000);
  char *huge = static_cast<char *>(__c3_malloc(big));
  std::memset(huge, 3, size_t(1) << 20);
  void *small_after = __c3_malloc(1000);
  std::vector<heap::Extent> with_huge = heap::live_extents();
  REQUIRE(extents_bytes(with_huge) >= big);
  __c3_free(huge);
  std::vector<heap::Extent> extents = heap::live_extents();
  heap::Stats st = heap::stats();
  REQUIRE(st.high_water >= big);
  REQUIRE(extents_bytes(extents) + big - (size_t(1) << 20) < extents_bytes(with_huge));
  REQUIRE(extents_bytes(extents) < st.high_water / 16);
  // Ascending, non-overlapping, merged; the header and the live blocks are inside.
  REQUIRE(extents.front().addr == heap::kDefaultBase);
  for (size_t i = 1; i < extents.size(); ++i)
    REQUIRE(extents[i - 1].addr + extents[i - 1].size < extents[i].addr);
  auto covered = [&](const void *p, size_t n) {
    for (const auto &e : extents)
      if (addr(p) >= e.addr && addr(p) + n <= e.addr + e.size) return true;
    return false;
  };
  REQUIRE(covered(small_before, 1000));
  REQUIRE(covered(small_after, 1000));
  // Nothing of the freed block's interior is saved.
  for (const auto &e : extents)
    REQUIRE((e.addr + e.size <= addr(huge) + 16 || e.addr >= addr(huge) + big - 16));
  __c3_free(small_before);
  __c3_free(small_after);
}

namespace {

// Linked structures built inside the arena for the round trip.
struct ListNode {
  ListNode *next;
  uint64_t value;
  char *name;  // strdup'ed into the arena
};

struct TreeNode {
  TreeNode *left, *right;
  uint64_t key;
  double *payload;  // calloc'ed array, payload[0] = key / 2
};

struct Roots {
  ListNode *list;
  TreeNode *tree;
  uint64_t *big_array;  // 4 Mi elements
  size_t big_count;
  void **vector;  // realloc-grown array of aligned blocks
  size_t vector_len;
};

TreeNode *tree_insert(TreeNode *t, uint64_t key) {
  if (!t) {
    auto *n = static_cast<TreeNode *>(__c3_malloc(sizeof(TreeNode)));
    n->left = n->right = nullptr;
    n->key = key;
    n->payload = static_cast<double *>(__c3_calloc(1 + key % 50, sizeof(double)));
    n->payload[0] = double(key) / 2;
    return n;
  }
  if (key < t->key)
    t->left = tree_insert(t->left, key);
  else
    t->right = tree_insert(t->right, key);
  return t;
}

void tree_describe(const TreeNode *t, std::vector<std::string> &out) {
  if (!t) return;
  tree_describe(t->left, out);
  out.push_back(std::to_string(t->key) + "@" + hex_pointer(t) + ":" + std::to_string(t->payload[0]) + "@" +
                hex_pointer(t->payload));
  tree_describe(t->right, out);
}

// Everything reachable from the roots, addresses included, as text kept outside the arena.
std::vector<std::string> describe(const Roots *r) {
  std::vector<std::string> out;
  for (const ListNode *n = r->list; n; n = n->next)
    out.push_back(hex_pointer(n) + " " + std::to_string(n->value) + " " + n->name + "@" + hex_pointer(n->name));
  tree_describe(r->tree, out);
  uint64_t sum = 0;
  for (size_t i = 0; i < r->big_count; ++i) sum = sum * 31 + r->big_array[i];
  out.push_back("array " + hex_pointer(r->big_array) + " " + std::to_string(sum));
  for (size_t i = 0; i < r->vector_len; ++i)
    out.push_back("vec " + hex_pointer(r->vector[i]) + " " + std::to_string(*static_cast<uint32_t *>(r->vector[i])));
  return out;
}

void free_tree(TreeNode *t) {
  if (!t) return;
  free_tree(t->left);
  free_tree(t->right);
  __c3_free(t->payload);
  __c3_free(t);
}

}  // namespace

TEST_CASE("heap: checkpoint round trip restores every structure and the allocator", "[heap][restore]") {
  ensure_heap();
  std::mt19937_64 rng(99);

  // Some churn first so the saved heap has free blocks of every size and a non-trivial top.
  Shadow shadow(1024, 4242);
  shadow.run(20000);
  REQUIRE(shadow.failures == 0);

  auto *roots = static_cast<Roots *>(__c3_calloc(1, sizeof(Roots)));
  for (int i = 0; i < 1000; ++i) {
    auto *n = static_cast<ListNode *>(__c3_malloc(sizeof(ListNode)));
    n->value = rng();
    n->name = __c3_strdup(("node-" + std::to_string(i)).c_str());
    n->next = roots->list;
    roots->list = n;
  }
  for (int i = 0; i < 2000; ++i) roots->tree = tree_insert(roots->tree, rng() % 1000000);
  roots->big_count = size_t(4) << 20;
  roots->big_array = static_cast<uint64_t *>(__c3_malloc(roots->big_count * sizeof(uint64_t)));
  for (size_t i = 0; i < roots->big_count; ++i) roots->big_array[i] = i * 2654435761u;
  for (int i = 0; i < 300; ++i) {
    roots->vector = static_cast<void **>(__c3_realloc(roots->vector, (roots->vector_len + 1) * sizeof(void *)));
    void *b = __c3_aligned_alloc(size_t(64) << (i % 6), 40);
    *static_cast<uint32_t *>(b) = uint32_t(i * 17);
    roots->vector[roots->vector_len++] = b;
  }
  // A big block freed before the checkpoint: its interior is not saved.
  void *gone = __c3_malloc(size_t(40) << 20);
  std::memset(gone, 0x77, size_t(40) << 20);
  void *pin = __c3_malloc(10);  // keeps the freed block off the top
  __c3_free(gone);

  // --- checkpoint: copy the live extents out of the arena (into libc memory) ---
  const std::vector<std::string> saved_description = describe(roots);
  const heap::Stats saved_stats = heap::stats();
  const std::vector<heap::Extent> extents = heap::live_extents();
  std::vector<std::vector<unsigned char>> saved_bytes;
  for (const auto &e : extents) {
    const auto *p = reinterpret_cast<const unsigned char *>(e.addr);
    saved_bytes.emplace_back(p, p + e.size);
  }
  REQUIRE(extents_bytes(extents) < saved_stats.high_water);
  const Shadow shadow_at_checkpoint = shadow;

  // --- the run goes on and changes everything ---
  for (ListNode *n = roots->list; n; n = n->next) n->value ^= 0xffff;
  ListNode *victim = roots->list->next;
  roots->list->next = victim->next;
  __c3_free(victim->name);
  __c3_free(victim);
  free_tree(roots->tree->left);
  roots->tree->left = nullptr;
  std::memset(roots->big_array, 0, roots->big_count * sizeof(uint64_t));
  roots->big_array = static_cast<uint64_t *>(__c3_realloc(roots->big_array, 16));
  for (int i = 0; i < 500; ++i) __c3_malloc(rng() % 5000);
  shadow.run(20000);
  REQUIRE(describe(roots) != saved_description);

  // --- restore ---
  heap::reset_for_restore();
  REQUIRE(all_zero(roots, sizeof(Roots)));  // the range reads as zero until the copy
  REQUIRE(all_zero(reinterpret_cast<void *>(heap::kDefaultBase), 4096));
  for (size_t i = 0; i < extents.size(); ++i)
    std::memcpy(reinterpret_cast<void *>(extents[i].addr), saved_bytes[i].data(), extents[i].size);

  REQUIRE_NOTHROW(heap::verify());
  heap::Stats restored = heap::stats();
  REQUIRE(restored.bytes_in_use == saved_stats.bytes_in_use);
  REQUIRE(restored.blocks_in_use == saved_stats.blocks_in_use);
  REQUIRE(restored.high_water == saved_stats.high_water);
  REQUIRE(describe(roots) == saved_description);
  std::vector<heap::Extent> extents_again = heap::live_extents();
  REQUIRE(extents_again.size() == extents.size());
  for (size_t i = 0; i < extents.size(); ++i) {
    REQUIRE(extents_again[i].addr == extents[i].addr);
    REQUIRE(extents_again[i].size == extents[i].size);
  }

  // The allocator keeps working: the shadow model of the checkpoint goes on from there.
  shadow = shadow_at_checkpoint;
  REQUIRE(shadow.check_all() == 0);
  shadow.run(50000);
  REQUIRE(shadow.failures == 0);
  REQUIRE_NOTHROW(heap::verify());
  for (int i = 0; i < 100; ++i) {
    roots->tree = tree_insert(roots->tree, 2000000 + i);
    void *big = __c3_malloc(size_t(1) << 20);
    std::memset(big, i, size_t(1) << 20);
    __c3_free(big);
  }
  REQUIRE_NOTHROW(heap::verify());

  // Tear everything down: the heap returns to its pre-test block count.
  shadow.free_all();
  for (ListNode *n = roots->list; n;) {
    ListNode *next = n->next;
    __c3_free(n->name);
    __c3_free(n);
    n = next;
  }
  free_tree(roots->tree);
  __c3_free(roots->big_array);
  for (size_t i = 0; i < roots->vector_len; ++i) __c3_free(roots->vector[i]);
  __c3_free(roots->vector);
  __c3_free(roots);
  __c3_free(pin);
  REQUIRE_NOTHROW(heap::verify());
}
