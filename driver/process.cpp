#include "process.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "command_line.hpp"

extern char **environ;

namespace c3cc {
namespace {

volatile sig_atomic_t g_child_pid = 0;
volatile sig_atomic_t g_pending_signal = 0;

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void forward_signal(int signal_number) {
  g_pending_signal = signal_number;
  if (g_child_pid > 0) ::kill(g_child_pid, signal_number);
}

std::vector<char *> c_argv(const Command &command) {
  std::vector<char *> argv;
  for (const std::string &arg : command) argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  return argv;
}

pid_t spawn(const Command &command, const posix_spawn_file_actions_t *actions) {
  std::vector<char *> argv = c_argv(command);
  pid_t pid = 0;
  const int error = ::posix_spawnp(&pid, argv[0], actions, nullptr, argv.data(), environ);
  if (error != 0)
    throw UsageError("cannot run '" + command.front() + "': " + std::strerror(error));
  g_child_pid = pid;
  return pid;
}

ChildStatus wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw UsageError(std::string("waitpid failed: ") + std::strerror(errno));
  }
  g_child_pid = 0;
  ChildStatus result;
  if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

bool needs_quoting(const std::string &arg) {
  if (arg.empty()) return true;
  for (char c : arg) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::strchr("_@%+=:,./-", c) != nullptr;
    if (!plain) return true;
  }
  return false;
}

}  // namespace

std::string format_command(const Command &command) {
  std::string line;
  for (const std::string &arg : command) {
    if (!line.empty()) line += ' ';
    if (!needs_quoting(arg)) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

ChildStatus run_command(const Command &command) { return wait_for(spawn(command, nullptr)); }

std::string capture_output(const Command &command) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw UsageError(std::string("pipe failed: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  pid_t pid = 0;
  try {
    pid = spawn(command, &actions);
  } catch (...) {
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw;
  }
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (got > 0) {
      output.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  if (!wait_for(pid).ok()) throw UsageError("'" + format_command(command) + "' failed");
  return output;
}

int run_step(const Command &command, bool verbose) {
  if (verbose) std::fprintf(stderr, "%s\n", format_command(command).c_str());
  const ChildStatus status = run_command(command);
  if (status.signaled) {
    const std::string &path = command.front();
    std::fprintf(stderr, "c3cc: error: %s terminated by signal %d (%s)\n",
                 path.substr(path.rfind('/') + 1).c_str(), status.signal, strsignal(status.signal));
    return 128 + status.signal;
  }
  // The child has printed its diagnostics; its status is c3cc's.
  return status.exit_code;
}

void install_signal_forwarding() {
  struct sigaction action {};
  action.sa_handler = forward_signal;
  sigemptyset(&action.sa_mask);
  for (int signal_number : kForwardedSignals) ::sigaction(signal_number, &action, nullptr);
}

bool signal_received() { return g_pending_signal != 0; }

void die_of_pending_signal() {
  const int signal_number = g_pending_signal;
  if (signal_number == 0) return;
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace c3cc
