// Entering the PMPI layer: every hook opens an Entry, which in Run mode costs an increment, a copy
// and two tests, and otherwise lets the protocol catch up (control messages, mode changes,
// orphaned requests) before the call is handled. Also how the layer ends the job on an error.
#pragma once
#include <cstdint>
#include <string>

#include "state/protocol_state.hpp"

namespace c3::mpi {

// Nesting of c3 wrappers: MPICH calls some MPI_ functions itself (those are not the program's).
extern int g_depth;
// Set while a checkpoint is in progress, in Restore, or while orphaned requests are active: the
// outermost Entry then takes the slow path.
extern bool g_attention;
// state().next_call when the outermost hook began: calls from here on belong to the hook running.
extern uint64_t g_hook_first_call;
// Entries opened so far, nested ones too: while it stays the same, no hook has run (a set of
// requests the wrappers keep between calls stays as they left it; small_completion.cpp).
extern uint64_t g_entries;
void update_attention();
void enter_slow();  // polls control messages, advances modes, completes orphans
void leave_slow();  // ends Restore once the hook no longer uses the replay log

class Entry {
 public:
  // Forced inline: every wrapper opens one, and the generated wrappers make a large unit.
  [[gnu::always_inline]] Entry() : outermost_(g_depth++ == 0) {
    ++g_entries;
    if (!outermost_) return;
    g_hook_first_call = state().next_call;
    if (g_attention) enter_slow();
  }
  [[gnu::always_inline]] ~Entry() {
    if (outermost_ && g_attention) leave_slow();
    --g_depth;
  }
  Entry(const Entry &) = delete;
  Entry &operator=(const Entry &) = delete;
  bool outermost() const { return outermost_; }

 private:
  bool outermost_;
};

// c3's own MPI calls outside any hook (the checkpoint snapshot) count as inside the layer too:
// a crash there is a peer's failure, not the program's (output::hold_on_crash_when).
class InsideLayer {
 public:
  InsideLayer() { ++g_depth; }
  ~InsideLayer() { --g_depth; }
  InsideLayer(const InsideLayer &) = delete;
  InsideLayer &operator=(const InsideLayer &) = delete;
};

[[noreturn]] void fatal(const std::string &message);
// MPICH reported `error` for a send or receive c3 made for the program (a truncated message of a
// program that set MPI_ERRORS_RETURN; the default handler aborts inside MPICH first).
[[noreturn]] void message_failed(int error);
// An error every rank of MPI_COMM_WORLD has found alike (restart agreement): rank 0 reports it,
// all ranks finalize MPI and exit with status 2, so no abort races the message out of mpiexec.
[[noreturn]] void fatal_everywhere(const std::string &message);

uint64_t now_ns();

}  // namespace c3::mpi
