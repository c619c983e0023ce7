#include "Relink.h"

namespace c3pre {

std::vector<bool> unitsToInstrumentAgain(const std::vector<FileSummary> &Units, const ReachInfo &Whole) {
  std::vector<bool> Again(Units.size(), false);
  for (size_t K = 0; K < Units.size(); ++K) {
    // What c3cc -c decided for this file alone.
    const ReachInfo Alone({Units[K]}, false);
    for (const auto &F : Units[K].Functions)
      if (Whole.instruments(F.Key) != Alone.instruments(F.Key)) Again[K] = true;
  }
  return Again;
}

}  // namespace c3pre
