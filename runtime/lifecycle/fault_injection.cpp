#include "lifecycle/fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include "lifecycle/config.hpp"

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
      {"mid-release:", FaultStage::MidRelease},
      {"site:", FaultStage::Site},
      {"nondet-log:", FaultStage::NonDetLog},
      {"recvonly-log:", FaultStage::RecvOnlyLog},
      {"after-local-commit:", FaultStage::AfterLocalCommit},
  };
  auto number = [](const std::string &digits, uint64_t &n) {
    n = 0;
    if (digits.empty() || digits.size() > 18) return false;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      n = n * 10 + uint64_t(c - '0');
    }
    return true;
  };
  for (const Named &s : kStages) {
    std::string prefix = s.prefix;
    if (value.compare(0, prefix.size(), prefix) != 0) continue;
    std::string rest = value.substr(prefix.size());
    std::string rank_text;
    size_t at = rest.find('@');
    if (at != std::string::npos) {
      rank_text = rest.substr(at + 1);
      rest = rest.substr(0, at);
    }
    uint64_t n = 0, rank = 0;
    bool ok = number(rest, n) && n >= 1;
    if (at != std::string::npos) ok = ok && number(rank_text, rank) && rank < (1u << 30);
    if (ok) return FaultPlan{s.stage, n, at == std::string::npos ? -1 : int64_t(rank)};
    break;
  }
  throw ConfigError(std::string(name) + "='" + value +
                    "': expected STAGE:N or STAGE:N@RANK, STAGE one of after-commit, mid-write, "
                    "before-commit, before-release, mid-release, nondet-log, recvonly-log, "
                    "after-local-commit, site (N >= 1)");
}

namespace fault {
namespace {
FaultPlan g_plan;
uint64_t g_site_visits = 0;
int64_t g_rank = 0;

bool this_rank() { return g_plan.rank < 0 || g_plan.rank == g_rank; }

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

void set_rank(int64_t rank) { g_rank = rank; }

bool site_armed() { return g_plan.stage == FaultStage::Site; }

void site_visited() {
  if (g_plan.stage == FaultStage::Site && ++g_site_visits == g_plan.n && this_rank()) die();
}

void reached(FaultStage stage, uint64_t checkpoint) {
  if (stage != FaultStage::None && stage != FaultStage::Site && g_plan.stage == stage &&
      g_plan.n == checkpoint && this_rank())
    die();
}

}  // namespace fault
}  // namespace c3
