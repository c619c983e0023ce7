#include "Relink.h"

namespace c3pre {

std::vector<bool> unitsToInstrumentAgain(const std::vector<FileSummary> &Units, const ReachInfo &Whole) {
  std::vector<bool> Again(Units.size(), false);
  for (size_t K = 0; K < Units.size(); ++K) {
    // What c3cc -c decided for this file alone.
    const ReachInfo Alone({Units[K]}, false);
    for (const auto &F : Units[K].Functions) {
      const bool Instrumented = Whole.instruments(F.Key);
      if (Instrumented != Alone.instruments(F.Key)) Again[K] = true;
      if (!Instrumented) continue;
      // Its call sites: one per call that may reach a checkpoint.
      for (const std::string &Callee : F.Callees)
        if (Whole.reaches(Callee) != Alone.reaches(Callee)) Again[K] = true;
      if (F.CallsIndirectly && Whole.indirectCallsReach() != Alone.indirectCallsReach()) Again[K] = true;
    }
  }
  return Again;
}

}  // namespace c3pre
