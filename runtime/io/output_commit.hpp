// Output commit: what the program writes to stdout between two checkpoints is released only when
// the later checkpoint commits (or the program exits). A run killed after checkpoint N has then
// printed exactly the output up to checkpoint N, and the restarted run prints the rest, so the
// two outputs put together equal an uninterrupted run's, whether stdout is a file, a pipe or two
// different files. Terminals get output immediately (a person is watching).
//
// The program's fd 1 becomes a memory file; the real stdout is kept on another descriptor.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace c3::output {

enum class Mode { Auto, Commit, Immediate };  // Auto: Commit unless stdout is a terminal

// Starts capturing (if the mode says so). Safe to call once, before the application runs.
void begin(Mode mode);
// A crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) or exit releases the held output, unless
// `failure_elsewhere` (async-signal-safe) says another process's failure caused it: MPI aborts
// a rank whose peer died in mid-transfer (UCX with abort(), MPICH's fatal error handler with
// exit()), and that rank's restart prints the output again.
void hold_on_crash_when(bool (*failure_elsewhere)());
// Whether the process is ending now because another process failed (see hold_on_crash_when).
bool failure_elsewhere();
bool capturing();
// The descriptor of the real stdout (1 when not capturing).
int real_stdout_fd();
// Bytes written by the program and not released yet (after fflush(stdout)).
uint64_t pending_bytes();
// Told around each write to the real stdout, so that what was shown can be recorded for a
// restart: (shown, showing) before bytes [shown, showing) of the lineage's output are written,
// (shown, shown) right after (not told when nothing is written). A kill between the two calls leaves a record that says which
// bytes may or may not have reached stdout (hydra kills a rank at any instruction).
using ShownRecord = std::function<void(uint64_t shown, uint64_t showing)>;
// Writes everything captured so far to the real stdout. Call after a commit and at exit.
void release(const ShownRecord &record = {});
// Writes the first `bytes` held bytes (at most all of them) and keeps holding the rest: an MPI
// rank releases output only up to the newest checkpoint every rank has committed.
void release_prefix(uint64_t bytes, const ShownRecord &record = {});
// Bytes released to the real stdout over the lineage of runs (set_released_bytes at restart).
uint64_t released_bytes();
void set_released_bytes(uint64_t bytes);
// Bytes of the lineage's output shown so far: released by this run, or shown by an earlier run
// and still to be dropped (discard_next). This is the count a record must keep.
uint64_t shown_bytes();
// The next `bytes` bytes to be released were shown by an earlier run of this lineage (a restart
// fell back to an older checkpoint): they are dropped instead of shown again.
void discard_next(uint64_t bytes);

// The held-back bytes themselves (after fflush(stdout)); a checkpoint stores them, so output
// of a run killed between its commit and the release is not lost.
std::string held_back();
// Around release() (see ShownRecord): marks checkpoint folder `checkpoint_path` as having its
// held-back output being shown, then shown.
void mark_showing(const std::string &checkpoint_path);
void mark_released(const std::string &checkpoint_path);
enum class Shown { No, Maybe, Yes };  // Maybe: the process died while it wrote the output
Shown held_output_shown(const std::string &checkpoint_path);
// Restart, before begin(): writes bytes a killed run held back but never released.
void reemit(const std::string &bytes);

}  // namespace c3::output
