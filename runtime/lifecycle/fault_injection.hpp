// Testing aid: C3_FAULT=<stage>:<n>[@<rank>] kills the process with SIGKILL at a chosen point, so
// tests can check that a restart after a crash at that point gives the uninterrupted result.
// `@rank` limits the fault to one rank of an MPI job.
#pragma once
#include <cstdint>
#include <string>

namespace c3 {

enum class FaultStage {
  None,
  AfterCommit,   // after-commit:N  checkpoint N committed and its line printed
  MidWrite,      // mid-write:N     some sections of checkpoint N's file written
  BeforeCommit,  // before-commit:N rank file renamed into place, COMMITTED not yet written
  BeforeRelease, // before-release:N checkpoint N committed, held-back stdout not yet released
  MidRelease,    // mid-release:N   checkpoint N's held-back stdout written, not yet recorded as shown
  Site,          // site:K          K-th visit of any pragma site in this process
  NonDetLog,     // nondet-log:N    MPI: leaving NonDet-Log of checkpoint N (last Checkpoint-Initiated in)
  RecvOnlyLog,   // recvonly-log:N  MPI: last late message of checkpoint N in, log not yet written
  AfterLocalCommit,  // after-local-commit:N  MPI: this rank's part committed, global commit unknown
};

struct FaultPlan {
  FaultStage stage = FaultStage::None;
  uint64_t n = 0;  // checkpoint number, or visit count for Site
  int64_t rank = -1;  // only this rank dies (-1: any)
};

// Parses a C3_FAULT value; throws ConfigError (see config.hpp) naming `name`.
FaultPlan parse_fault(const char *name, const std::string &value);

namespace fault {
// Makes `plan` the active one for this process.
void arm(const FaultPlan &plan);
// The process's rank, once known (MPI_Init); faults with `@rank` fire only on that rank.
void set_rank(int64_t rank);
// True when a Site fault is armed: pragma sites must then call site_visited() on every visit.
bool site_armed();
void site_visited();
// Kills the process if `stage` for checkpoint `checkpoint` is the armed fault.
void reached(FaultStage stage, uint64_t checkpoint);
}  // namespace fault

}  // namespace c3
