// Frame chains at a checkpoint (refusals) and frame restore during replay (divergence exits 2).
// Fake frame records are placed in the real fixed stack, mapped once for this test binary.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "memory/fixed_stack.hpp"
#include "memory/frames.hpp"

using namespace c3;

namespace {

struct FakeFrame {
  __c3_frame h;
  long value;
};

// Three frames laid out like a real call chain (outermost at the highest address).
struct Chain {
  FakeFrame *outer, *mid, *inner;
};

Chain make_chain() {
  if (!fixed_stack::mapped()) fixed_stack::map(size_t(1) << 20);
  auto *top = reinterpret_cast<FakeFrame *>(fixed_stack::top());
  Chain c{top - 10, top - 20, top - 30};
  const char *names[] = {"main", "mid", "leaf"};
  FakeFrame *frames[] = {c.outer, c.mid, c.inner};
  __c3_frame *prev = nullptr;
  for (int i = 0; i < 3; ++i) {
    std::memset(frames[i], 0, sizeof(FakeFrame));
    frames[i]->h.prev = prev;
    frames[i]->h.size = sizeof(FakeFrame);
    frames[i]->h.function = names[i];
    frames[i]->h.entered_by_replayable_call = 1;
    frames[i]->h.site = unsigned(i + 1);
    frames[i]->value = 100 + i;
    prev = &frames[i]->h;
  }
  __c3_top = prev;
  return c;
}

// Runs fn in a child; returns its exit status and what it wrote to stderr.
template <class F>
std::pair<int, std::string> in_child(F fn) {
  int p[2];
  REQUIRE(pipe(p) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(p[1], 2);
    close(p[0]);
    fn();
    _exit(0);
  }
  close(p[1]);
  std::string err;
  char buf[512];
  ssize_t n;
  while ((n = read(p[0], buf, sizeof buf)) > 0) err.append(buf, size_t(n));
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err};
}

std::vector<MemoryPiece> saved_copy(const Chain &c, std::vector<FakeFrame> &store) {
  store = {*c.outer, *c.mid, *c.inner};
  std::vector<MemoryPiece> pieces;
  FakeFrame *addrs[] = {c.outer, c.mid, c.inner};
  for (int i = 0; i < 3; ++i)
    pieces.push_back(MemoryPiece{reinterpret_cast<uintptr_t>(addrs[i]), sizeof(FakeFrame),
                                 reinterpret_cast<const uint8_t *>(&store[size_t(i)])});
  return pieces;
}

}  // namespace

TEST_CASE("frames: chain is collected outermost first") {
  Chain c = make_chain();
  auto chain = frames::active_chain();
  REQUIRE(chain.size() == 3);
  CHECK(chain[0] == &c.outer->h);
  CHECK(chain[2] == &c.inner->h);
  __c3_top = nullptr;
}

TEST_CASE("frames: a frame entered from non-c3 code refuses the checkpoint") {
  Chain c = make_chain();
  c.mid->h.entered_by_replayable_call = 0;
  try {
    frames::active_chain();
    FAIL("no refusal");
  } catch (const frames::CheckpointRefused &e) {
    CHECK(std::string(e.what()) ==
          "it is reached through a call c3 cannot re-enter (into 'mid' from code c3 did not "
          "instrument, e.g. a library callback or a function c3 left uninstrumented); move the "
          "pragma out of it");
  }
  // The outermost frame too: it must have been entered from __c3_app_main (an uninstrumented
  // main calling qsort with an instrumented callback leaves the callback outermost).
  c.mid->h.entered_by_replayable_call = 1;
  c.outer->h.entered_by_replayable_call = 0;
  CHECK_THROWS_AS(frames::active_chain(), frames::CheckpointRefused);
  c.outer->h.entered_by_replayable_call = 1;
  CHECK(frames::active_chain().size() == 3);
  __c3_top = nullptr;
}

TEST_CASE("frames: frames off the fixed stack or no frames at all are refused") {
  make_chain();
  FakeFrame off_stack{};
  off_stack.h.prev = __c3_top;
  off_stack.h.size = sizeof off_stack;
  off_stack.h.function = "handler";
  off_stack.h.entered_by_replayable_call = 1;
  __c3_top = &off_stack.h;
  CHECK_THROWS_WITH(frames::active_chain(),
                    Catch::Contains("stack c3 does not manage") && Catch::Contains("handler"));
  __c3_top = nullptr;
  CHECK_THROWS_AS(frames::active_chain(), frames::CheckpointRefused);
}

TEST_CASE("frames: saved chain validation") {
  Chain c = make_chain();
  std::vector<FakeFrame> store;
  auto pieces = saved_copy(c, store);
  CHECK_NOTHROW(frames::validate_saved(pieces));
  store[1].h.prev = nullptr;  // not linked to its caller
  CHECK_THROWS_AS(frames::validate_saved(pieces), Error);
  store[1].h.prev = &c.outer->h;
  pieces[2].address = 0x1000;  // outside the stack
  CHECK_THROWS_WITH(frames::validate_saved(pieces),
                    Catch::Contains("outside the application stack"));
  CHECK_THROWS_AS(frames::validate_saved({}), Error);
  __c3_top = nullptr;
}

TEST_CASE("frames: replay restores records in order, then the pragma ends it") {
  Chain c = make_chain();
  std::vector<FakeFrame> store;
  auto pieces = saved_copy(c, store);
  frames::load_for_replay(pieces);
  // The replayed frames start out with other contents.
  for (FakeFrame *f : {c.outer, c.mid, c.inner}) f->value = -1;
  auto [code, err] = in_child([&] {
    for (FakeFrame *f : {c.outer, c.mid, c.inner}) {
      __c3_top = &f->h;
      __c3_frame_restore(&f->h);
      if (f->value < 100) _exit(10);
    }
    frames::finish_replay("t.c:9");
    _exit(c.inner->h.site == 3 ? 0 : 11);
  });
  CHECK(code == 0);
  CHECK(err == "");
  __c3_top = nullptr;
}

TEST_CASE("frames: replay divergence exits 2 with a clear message") {
  Chain c = make_chain();
  std::vector<FakeFrame> store;
  auto pieces = saved_copy(c, store);
  frames::load_for_replay(pieces);

  // Second frame lands elsewhere.
  auto [code, err] = in_child([&] {
    __c3_frame_restore(&c.outer->h);
    __c3_frame_restore(&(c.mid - 1)->h);
  });
  CHECK(code == 2);
  CHECK_THAT(err, Catch::StartsWith("c3: error: restart diverged: frame of 'mid' expected at 0x") &&
                      Catch::Contains("was the program rebuilt?"));

  // Size differs.
  auto [code2, err2] = in_child([&] {
    c.outer->h.size = 8;
    __c3_frame_restore(&c.outer->h);
  });
  CHECK(code2 == 2);
  CHECK_THAT(err2, Catch::Contains("(size 8)"));

  // Pragma reached before all frames were restored.
  auto [code3, err3] = in_child([&] {
    __c3_frame_restore(&c.outer->h);
    frames::finish_replay("t.c:5");
  });
  CHECK(code3 == 2);
  CHECK_THAT(err3, Catch::Contains("t.c:5 was reached after restoring 1 of 3 saved frames"));

  // More frames than saved.
  auto [code4, err4] = in_child([&] {
    for (FakeFrame *f : {c.outer, c.mid, c.inner}) __c3_frame_restore(&f->h);
    __c3_frame_restore(&(c.inner - 5)->h);
  });
  CHECK(code4 == 2);
  CHECK_THAT(err4, Catch::Contains("after all 3 saved frames were restored"));

  auto [code5, err5] = in_child([&] {
    c.mid->h.site = 42;
    __c3_bad_site(&c.mid->h);
  });
  CHECK(code5 == 2);
  CHECK_THAT(err5, Catch::Contains("no call site 42 in 'mid'"));
  __c3_top = nullptr;
}
