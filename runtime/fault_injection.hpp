// Testing aid: C3_FAULT=<stage>:<n> kills the process with SIGKILL at a chosen point, so tests
// can check that a restart after a crash at that point gives the uninterrupted result.
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
  Site,          // site:K          K-th visit of any pragma site in this process
};

struct FaultPlan {
  FaultStage stage = FaultStage::None;
  uint64_t n = 0;  // checkpoint number, or visit count for Site
};

// Parses a C3_FAULT value; throws ConfigError (see config.hpp) naming `name`.
FaultPlan parse_fault(const char *name, const std::string &value);

namespace fault {
// Makes `plan` the active one for this process.
void arm(const FaultPlan &plan);
// True when a Site fault is armed: pragma sites must then call site_visited() on every visit.
bool site_armed();
void site_visited();
// Kills the process if `stage` for checkpoint `checkpoint` is the armed fault.
void reached(FaultStage stage, uint64_t checkpoint);
}  // namespace fault

}  // namespace c3
