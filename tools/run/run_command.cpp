// `c3 run [--max-restarts N] [--resume] [--] COMMAND...`: runs a job (mpiexec, srun, or the
// program itself) until it finishes, relaunching it from its newest committed checkpoint after
// each failure. Whether the job finished or failed is what its processes say (C3_RUN_DIR, see
// runtime/lifecycle/run_markers.hpp), not the launcher's exit status: a program may exit non-zero
// on purpose, and a launcher may report a killed rank in many ways.
#include "run/run_command.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "run/launcher_output.hpp"
#include "store/ckpt_dir.hpp"

namespace c3::run {
namespace {

volatile sig_atomic_t g_stop_signal = 0;
pid_t g_child = -1;

void forward_signal(int sig) {
  g_stop_signal = sig;
  if (g_child > 0) kill(g_child, sig);
}

double now_s() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

void write_all(int fd, const std::string &s) {
  for (size_t done = 0; done < s.size();) {
    ssize_t w = write(fd, s.data() + done, s.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    done += size_t(w);
  }
}

// The pids named by files "<prefix>.<pid>" in `dir`.
std::set<std::string> marked(const std::string &dir, const std::string &prefix) {
  std::set<std::string> pids;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string name = e->d_name;
      if (name.rfind(prefix + ".", 0) == 0) pids.insert(name.substr(prefix.size() + 1));
    }
    closedir(d);
  }
  return pids;
}

void clear_markers(const std::string &dir) {
  for (const char *prefix : {"started", "exited"})
    for (const std::string &pid : marked(dir, prefix))
      unlink((dir + "/" + prefix + "." + pid).c_str());
}

// What one attempt showed on its stderr (c3's lines pass through unchanged).
struct Attempt {
  int status = 0;               // the command's exit status (128 + signal when killed)
  double start = 0, end = 0;
  double last_commit = 0;       // when the newest "c3: checkpoint N committed" line came
  long restarted_from = -1;     // "c3: restarting from checkpoint N"
};

void scan_stderr_line(const std::string &line, Attempt &a) {
  long n = 0;
  if (std::sscanf(line.c_str(), "c3: restarting from checkpoint %ld", &n) == 1 &&
      a.restarted_from < 0)
    a.restarted_from = n;
  else if (std::sscanf(line.c_str(), "c3: checkpoint %ld committed", &n) == 1)
    a.last_commit = now_s();
}

// Runs the command once: stdout through the launcher filter, stderr passed on and scanned.
Attempt launch(const std::vector<std::string> &command, const std::string &run_dir,
               const char *restart) {
  Attempt a;
  a.start = now_s();
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  g_child = fork();
  if (g_child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (g_child == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    setenv("C3_RUN_DIR", run_dir.c_str(), 1);
    if (restart)
      setenv("C3_RESTART", restart, 1);
    else
      unsetenv("C3_RESTART");
    std::vector<char *> argv;
    for (const std::string &s : command) argv.push_back(const_cast<char *>(s.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "c3 run: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  LauncherOutputFilter filter([](const std::string &l) { write_all(1, l); },
                              [](const std::string &l) { write_all(2, l); });
  std::string partial[2];
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_streams = 2;
  char buffer[65536];
  while (open_streams > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_streams;
        continue;
      }
      if (i == 1) write_all(2, std::string(buffer, size_t(n)));  // stderr as it comes
      partial[i].append(buffer, size_t(n));
      size_t nl;
      while ((nl = partial[i].find('\n')) != std::string::npos) {
        std::string line = partial[i].substr(0, nl + 1);
        partial[i].erase(0, nl + 1);
        if (i == 0)
          filter.line(line);
        else
          scan_stderr_line(line, a);
      }
      if (i == 0 && partial[0].size() > (1u << 20)) {  // a very long line: no block of hydra's
        filter.line(partial[0]);
        partial[0].clear();
      }
    }
  }
  if (!partial[0].empty()) filter.line(partial[0]);
  filter.finish();
  int status = 0;
  while (waitpid(g_child, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = -1;
  a.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  a.end = now_s();
  return a;
}

const char kUsage[] =
    "usage: c3 run [--max-restarts N] [--resume] [--] COMMAND [ARGS...]\n"
    "  runs COMMAND (mpiexec -n 4 ./app, srun ./app, or ./app) and, when the job fails,\n"
    "  runs it again from the newest checkpoint committed in C3_CKPT_DIR (from the start when\n"
    "  there is none), at most N times (default 10). stdout is the program's alone (the\n"
    "  launcher's report of a failure goes to stderr); the exit status is the program's.\n"
    "  --resume: the first attempt continues from the checkpoints already in C3_CKPT_DIR.\n";

}  // namespace

int run_command(const std::vector<std::string> &args) {
  long max_restarts = 10;
  bool resume = false;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--resume") {
      resume = true;
    } else if (a == "--max-restarts" && i + 1 < args.size()) {
      char *end = nullptr;
      max_restarts = std::strtol(args[++i].c_str(), &end, 10);
      if (*end || args[i].empty() || max_restarts < 0) {
        std::fprintf(stderr, "c3 run: error: --max-restarts '%s': expected a number >= 0\n",
                     args[i].c_str());
        return 2;
      }
    } else if (a.rfind("-", 0) == 0) {
      std::fprintf(stderr, "c3 run: error: unknown option '%s'\n%s", a.c_str(), kUsage);
      return 2;
    } else {
      break;
    }
  }
  std::vector<std::string> command(args.begin() + long(i), args.end());
  if (command.empty()) {
    std::fprintf(stderr, "c3 run: error: no command to run\n%s", kUsage);
    return 2;
  }

  const char *dir_env = std::getenv("C3_CKPT_DIR");
  const std::string ckpt_dir = dir_env && *dir_env ? dir_env : "./c3-ckpt";
  CheckpointDir dir(ckpt_dir);
  if (!resume) {
    std::vector<CheckpointEntry> existing;
    try {
      existing = dir.list();
    } catch (const std::exception &) {
    }
    if (!existing.empty()) {
      std::fprintf(stderr,
                   "c3 run: error: %s already holds checkpoints (%lu to %lu) of an earlier run; "
                   "remove them, set C3_CKPT_DIR to another directory, or continue that run "
                   "with c3 run --resume\n",
                   ckpt_dir.c_str(), static_cast<unsigned long>(existing.front().number),
                   static_cast<unsigned long>(existing.back().number));
      return 2;
    }
  }

  char pattern[] = "/tmp/c3-run.XXXXXX";
  if (!mkdtemp(pattern)) {
    std::fprintf(stderr, "c3 run: error: cannot create a directory in /tmp: %s\n",
                 std::strerror(errno));
    return 2;
  }
  const std::string run_dir = pattern;
  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);

  std::vector<Attempt> attempts;
  std::string outcome;
  int status = 0;
  for (;;) {
    clear_markers(run_dir);
    const char *restart = attempts.empty() ? (resume ? "latest" : nullptr) : "auto";
    Attempt a;
    try {
      a = launch(command, run_dir, restart);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "c3 run: error: %s\n", e.what());
      status = 2;
      break;
    }
    attempts.push_back(a);
    status = a.status;
    const std::set<std::string> started = marked(run_dir, "started");
    const std::set<std::string> exited = marked(run_dir, "exited");
    if (g_stop_signal) {
      outcome = "stopped by signal " + std::to_string(g_stop_signal);
      break;
    }
    if (started.empty()) {
      outcome = attempts.size() == 1 ? "the command started no program built with c3cc"
                                     : "the relaunched job did not start (see the messages above)";
      break;
    }
    if (started == exited) {
      outcome = "finished";
      break;
    }
    if (long(attempts.size()) > max_restarts) {
      outcome = "gave up (--max-restarts " + std::to_string(max_restarts) + ")";
      if (status == 0) status = 1;
      break;
    }
    std::fprintf(stderr, "c3 run: the job failed (exit status %d); running it again from its "
                         "newest committed checkpoint\n",
                 a.status);
  }
  clear_markers(run_dir);
  rmdir(run_dir.c_str());

  // Summary: attempts, where each restart began, and the work the failures threw away (from
  // the newest commit an attempt saw, or its start, to its end).
  std::string from;
  double lost = 0;
  for (size_t k = 0; k < attempts.size(); ++k) {
    const Attempt &a = attempts[k];
    if (k > 0)
      from += std::string(from.empty() ? "" : ", ") +
              (a.restarted_from >= 0 ? "checkpoint " + std::to_string(a.restarted_from)
                                     : std::string("the start"));
    if (k + 1 < attempts.size()) lost += a.end - (a.last_commit > 0 ? a.last_commit : a.start);
  }
  std::fprintf(stderr, "c3 run: %s after %zu attempt%s", outcome.c_str(), attempts.size(),
               attempts.size() == 1 ? "" : "s");
  if (attempts.size() > 1) std::fprintf(stderr, " (restarted from %s; %.1f s lost)", from.c_str(), lost);
  std::fprintf(stderr, ", exit status %d\n", status);
  return status;
}

}  // namespace c3::run
