// MPICH calls the program's reduction operators and error handlers with MPICH's handles (of the
// datatype, of the communicator); the program compares them with its own. So MPICH is given one
// of a fixed set of trampolines instead, each bound to a slot that holds the program's function:
// the trampoline hands the function the program's handle. Code addresses are fixed (-no-pie), so
// a slot's function is the same after a restart.
#pragma once
#include <array>
#include <cstdint>
#include <utility>

namespace c3::mpi {

template <int N>
class TrampolineSlots {
 public:
  // The lowest free slot for `function`, or -1 when all are taken.
  int take(uint64_t function) {
    for (int i = 0; i < N; ++i)
      if (!functions_[size_t(i)]) {
        functions_[size_t(i)] = function;
        return i;
      }
    return -1;
  }
  void bind(int slot, uint64_t function) { functions_[size_t(slot)] = function; }
  void release(int slot) {
    if (slot >= 0 && slot < N) functions_[size_t(slot)] = 0;
  }
  uint64_t function(int slot) const { return functions_[size_t(slot)]; }
  static constexpr int size() { return N; }

 private:
  std::array<uint64_t, N> functions_{};
};

// A table of &Tramp<0> .. &Tramp<N-1>.
template <class Fn, template <int> class Tramp, int... K>
constexpr std::array<Fn *, sizeof...(K)> trampoline_table(std::integer_sequence<int, K...>) {
  return {&Tramp<K>::call...};
}

}  // namespace c3::mpi
