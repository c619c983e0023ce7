// Running the pipeline's child processes: exit statuses, signals, and printing commands.
#pragma once

#include <string>
#include <vector>

namespace c3cc {

using Command = std::vector<std::string>;

// The command as a line a POSIX shell would run unchanged.
std::string format_command(const Command &command);

struct ChildStatus {
  int exit_code = 0;  // valid when !signaled
  int signal = 0;     // valid when signaled
  bool signaled = false;
  bool ok() const { return !signaled && exit_code == 0; }
};

// Runs the command (searching PATH) and waits. Throws UsageError when it cannot be started.
ChildStatus run_command(const Command &command);

// Runs one of c3cc's steps: prints it first with -v, reports a child killed by a signal, and
// returns the status c3cc then exits with (the child's, or 128 + the signal).
int run_step(const Command &command, bool verbose);

// Runs the command and returns its standard output; throws UsageError when it fails.
std::string capture_output(const Command &command);

// SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to c3cc are forwarded to the running child; c3cc then
// cleans up and dies of the same signal (see die_of_pending_signal).
void install_signal_forwarding();
// Whether c3cc itself received one of those signals.
bool signal_received();
// Re-raises a signal received while a child ran, if any. Call after cleaning up.
void die_of_pending_signal();

}  // namespace c3cc
