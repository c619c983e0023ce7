// atexit handlers recorded by __c3_atexit and registered again by a restarted process run in the
// same order at exit. Each case runs in a child process, whose exit runs the handlers.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "process/atexit_registry.hpp"
#include "c3/c3_abi.h"
#include "lifecycle/runtime_state.hpp"

using namespace c3;

namespace {
int g_report_fd = -1;
void say(char c) {
  if (write(g_report_fd, &c, 1) != 1) _exit(9);
}
void handler_a() { say('a'); }
void handler_b() { say('b'); }
void handler_c() { say('c'); }

// Runs `body` in a child that then exits normally; returns what its handlers said.
template <class Body>
std::string exit_sequence_of(Body body) {
  int p[2];
  REQUIRE(pipe(p) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    g_report_fd = p[1];
    body();
    std::exit(0);
  }
  close(p[1]);
  std::string said;
  char buf[64];
  ssize_t n;
  while ((n = read(p[0], buf, sizeof buf)) > 0) said.append(buf, size_t(n));
  close(p[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return said;
}
}  // namespace

TEST_CASE("atexit registry: handlers are recorded in order and run like atexit's") {
  std::string first_run = exit_sequence_of([] {
    persistent_state().atexit_handlers.clear();
    if (__c3_atexit(handler_a) != 0 || __c3_atexit(handler_b) != 0 || __c3_atexit(handler_c) != 0)
      _exit(3);
    const auto &saved = persistent_state().atexit_handlers;
    if (saved.size() != 3 || saved[0] != reinterpret_cast<uintptr_t>(handler_a) ||
        saved[2] != reinterpret_cast<uintptr_t>(handler_c))
      _exit(4);
  });
  CHECK(first_run == "cba");
  // A restarted process registers the saved handlers again: same order at exit.
  std::string restarted = exit_sequence_of([] {
    persistent_state().atexit_handlers = {reinterpret_cast<uintptr_t>(handler_a),
                                          reinterpret_cast<uintptr_t>(handler_b),
                                          reinterpret_cast<uintptr_t>(handler_c)};
    atexit_registry::register_saved();
  });
  CHECK(restarted == first_run);
}

TEST_CASE("atexit registry: at most 32 handlers, like the guarantee atexit gives") {
  std::string said = exit_sequence_of([] {
    persistent_state().atexit_handlers.clear();
    for (size_t i = 0; i < kMaxAtexitHandlers; ++i)
      if (__c3_atexit(handler_a) != 0) _exit(3);
    if (__c3_atexit(handler_b) == 0) _exit(4);  // one too many: refused, not registered
    if (__c3_atexit(nullptr) == 0) _exit(5);
    if (persistent_state().atexit_handlers.size() != kMaxAtexitHandlers) _exit(6);
  });
  CHECK(said == std::string(kMaxAtexitHandlers, 'a'));
}
