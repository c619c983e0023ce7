#include "fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include "config.hpp"

namespace c3 {

FaultPlan parse_fault(const char *name, const std::string &value) {
  struct Named {
    const char *prefix;
    FaultStage stage;
  };
  static const Named kStages[] = {
      {"after-commit:", FaultStage::AfterCommit},
      {"mid-write:", FaultStage::MidWrite},
      {"before-commit:", FaultStage::BeforeCommit},
      {"before-release:", FaultStage::BeforeRelease},
      {"site:", FaultStage::Site},
  };
  for (const Named &s : kStages) {
    std::string prefix = s.prefix;
    if (value.compare(0, prefix.size(), prefix) != 0) continue;
    std::string digits = value.substr(prefix.size());
    uint64_t n = 0;
    bool ok = !digits.empty() && digits.size() <= 18;
    for (char c : digits) {
      if (c < '0' || c > '9')
        ok = false;
      else
        n = n * 10 + uint64_t(c - '0');
    }
    if (ok && n >= 1) return FaultPlan{s.stage, n};
    break;
  }
  throw ConfigError(std::string(name) + "='" + value +
                    "': expected after-commit:N, mid-write:N, before-commit:N, before-release:N or site:K "
                    "(N, K >= 1)");
}

namespace fault {
namespace {
FaultPlan g_plan;
uint64_t g_site_visits = 0;

[[noreturn]] void die() {
  // A crash, not an exit: no atexit handlers, no stdio flush.
  kill(getpid(), SIGKILL);
  _exit(137);
}
}  // namespace

void arm(const FaultPlan &plan) {
  g_plan = plan;
  g_site_visits = 0;
}

bool site_armed() { return g_plan.stage == FaultStage::Site; }

void site_visited() {
  if (g_plan.stage == FaultStage::Site && ++g_site_visits == g_plan.n) die();
}

void reached(FaultStage stage, uint64_t checkpoint) {
  if (stage != FaultStage::None && stage != FaultStage::Site && g_plan.stage == stage &&
      g_plan.n == checkpoint)
    die();
}

}  // namespace fault
}  // namespace c3
