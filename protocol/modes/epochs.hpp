// The mode machine of the C3 protocol (docs/protocol.md "Modes"): epochs, Run / NonDet-Log /
// RecvOnly-Log / Restore, the local commit and learning the global commit, MPI_Finalize.
#pragma once
#include <cstdint>

#include "messages/piggyback.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi {

void progress();                     // control messages, orphaned requests, mode changes
void poll_control();
bool logging_nondet();               // NonDet-Log: outcomes are logged
// The header of a message sent now.
[[gnu::always_inline]] inline int32_t outgoing_header() {
  return piggyback::make_header(state().epoch, state().mode == Mode::NonDetLog);
}
// Whether a received message's header is of this epoch while this rank runs normally: the
// receive only counts it (message_received would do nothing else).
inline bool intra_epoch_in_run_mode(int32_t header) {
  return state().mode == Mode::Run && (header & ~4) == piggyback::make_header(state().epoch, false);
}
void enter_checkpoint();             // the epoch advances (at the state snapshot)
void send_checkpoint_initiated();    // after the state file is durable
void maybe_advance();                // NonDet-Log -> RecvOnly-Log -> commit
// NonDet-Log ends now, also in the middle of a hook (whose call is then not logged).
void end_nondet_log();
// In NonDet-Log, before a probe's match is logged: a sender that stopped logging may have sent
// it, and its All-Initiated, sent earlier, is then in.
void before_logging_probe();
void set_mode(Mode mode);
uint64_t checkpoint_number(uint64_t epoch);
void learn_global_commit(uint64_t number);
void finalize_protocol();            // MPI_Finalize: end or abandon a checkpoint, drain control
void setup_after_init(bool restarting);
// MPI_Init for the program or for a restart: MPICH runs at MPI_THREAD_FUNNELED, whatever level
// the program asks for (it gets the level it asked for: hooks/env_hooks.cpp).
int init_mpi(int *argc, char ***argv, int *provided);

}  // namespace c3::mpi
