// Runs this test executable again as a child process, for protocol paths that end the process
// (c3's fatal errors). posix_spawn, not fork: the parent is an MPI process and the child must
// share nothing with it but the executable.
#include <catch2/catch.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <vector>

#include "unit_support.hpp"

extern char **environ;

namespace c3::mpi::test {

int world_rank() {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

bool have_two_ranks() {
  if (world_size() >= 2) return true;
  WARN("needs two ranks (mpiexec -n 2): skipped");
  return false;
}

int pair_peer() {
  if (!have_two_ranks() || world_rank() > 1) return -1;
  return 1 - world_rank();
}

ChildResult run_child(const std::string &scenario) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  std::string self = "/proc/self/exe", flag = "--c3-child=" + scenario;
  std::vector<char *> args = {self.data(), flag.data(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (rc != 0) {
    close(pipe_fds[0]);
    throw std::runtime_error("posix_spawn failed");
  }
  ChildResult result;
  char buf[4096];
  for (;;) {
    ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n > 0) {
      result.err.append(buf, size_t(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace c3::mpi::test
