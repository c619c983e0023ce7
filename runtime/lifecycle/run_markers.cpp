#include "lifecycle/run_markers.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "io/output_commit.hpp"

namespace c3::run_markers {
namespace {

std::string g_dir;

void touch(const char *what) {
  std::string path = g_dir + "/" + what + "." + std::to_string(getpid());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
}

void exited() {
  if (!output::failure_elsewhere()) touch("exited");
}

}  // namespace

void begin(const std::string &run_dir) {
  if (run_dir.empty()) return;
  g_dir = run_dir;
  touch("started");
  std::atexit(exited);
}

}  // namespace c3::run_markers
