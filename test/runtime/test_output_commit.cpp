// Output commit's ShownRecord contract: each real write of released stdout is announced before
// (shown, showing) and confirmed after (shown, shown), nothing is told when nothing is written,
// and bytes an earlier run showed (discard_next) count as shown without being written again.
// Capturing replaces the process's fd 1, so each case runs in a child process whose stdout is a
// pipe; the child reports the calls it saw through a second pipe.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "io/output_commit.hpp"

using namespace c3;

namespace {

struct ChildResult {
  std::string stdout_bytes;  // what reached the real stdout
  std::string report;        // what the child wrote to its report pipe
};

std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) s.append(buf, size_t(n));
  return s;
}

// Runs `body` in a child whose stdout is a pipe; `body` writes its report with the function
// it is given. The child ends with _exit, so the exit-time release does not run.
ChildResult in_child(const std::function<void(const std::function<void(const std::string &)> &)> &body) {
  int out[2], rep[2];
  REQUIRE(pipe(out) == 0);
  REQUIRE(pipe(rep) == 0);
  std::fflush(stdout);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(out[0]);
    close(rep[0]);
    if (dup2(out[1], 1) < 0) _exit(3);
    close(out[1]);
    const int report_fd = rep[1];
    body([report_fd](const std::string &line) {
      std::string l = line + "\n";
      if (write(report_fd, l.data(), l.size()) != ssize_t(l.size())) _exit(4);
    });
    std::fflush(stdout);
    _exit(0);
  }
  close(out[1]);
  close(rep[1]);
  ChildResult r;
  r.stdout_bytes = read_all(out[0]);
  r.report = read_all(rep[0]);
  close(out[0]);
  close(rep[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return r;
}

// The calls a ShownRecord received, as "(shown,showing)..." since the last take().
struct CallLog {
  std::string calls;
  output::ShownRecord record() {
    return [this](uint64_t shown, uint64_t showing) {
      calls += "(" + std::to_string(shown) + "," + std::to_string(showing) + ")";
    };
  }
  std::string take() {
    std::string t;
    t.swap(calls);
    return t;
  }
};

}  // namespace

TEST_CASE("output commit: writes are announced and confirmed", "[output]") {
  ChildResult r = in_child([](const auto &report) {
    output::begin(output::Mode::Commit);
    CallLog log;
    std::printf("hello\n");
    output::release_prefix(3, log.record());  // "hel"
    report("prefix " + log.take());
    output::release(log.record());  // "lo\n"
    report("rest " + log.take());
    output::release(log.record());  // nothing held
    report("empty " + log.take());
    report("shown " + std::to_string(output::shown_bytes()));
  });
  CHECK(r.stdout_bytes == "hello\n");
  CHECK(r.report ==
        "prefix (0,3)(3,3)\n"
        "rest (3,6)(6,6)\n"
        "empty \n"
        "shown 6\n");
}

TEST_CASE("output commit: bytes an earlier run showed count as shown, not written", "[output]") {
  ChildResult r = in_child([](const auto &report) {
    output::begin(output::Mode::Commit);
    output::set_released_bytes(100);  // a restart: 100 bytes of the lineage were shown
    CallLog log;
    output::discard_next(4);
    report("before " + std::to_string(output::shown_bytes()));
    std::printf("abcdef");
    output::release(log.record());  // "abcd" dropped, "ef" written
    report("partly " + log.take());
    output::discard_next(10);
    std::printf("xy");
    output::release(log.record());  // both dropped: nothing written, nothing told
    report("dropped " + log.take() + " shown " + std::to_string(output::shown_bytes()) + " released " +
           std::to_string(output::released_bytes()));
  });
  CHECK(r.stdout_bytes == "ef");
  CHECK(r.report ==
        "before 104\n"
        "partly (104,106)(106,106)\n"
        "dropped  shown 116 released 108\n");
}

TEST_CASE("output commit: a release without a record still writes", "[output]") {
  ChildResult r = in_child([](const auto &report) {
    output::begin(output::Mode::Commit);
    std::printf("one\ntwo\n");
    output::release_prefix(4);
    report("held " + std::to_string(output::pending_bytes()));
    output::release();
    report("held " + std::to_string(output::pending_bytes()));
  });
  CHECK(r.stdout_bytes == "one\ntwo\n");
  CHECK(r.report == "held 4\nheld 0\n");
}
