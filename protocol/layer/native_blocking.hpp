// While the program waits in a blocking MPICH call that c3 cannot turn into a polling loop (a
// blocking collective, a communicator creation), c3 does not run: a receive of this process
// that gets the header of a large message cannot have its payload's receive posted, and the
// sender may not reach the collective before that payload is taken. So before such a call a
// rank whose receives may get split headers stalls their possible senders
// (split::stall_senders, messages/payload_window.hpp): it takes every payload they announced
// before, and they send later ones from copies, which complete without this rank. The stall
// ends with the call: back in c3, this rank serves arrived headers again.
#pragma once
#include "messages/split_transfer.hpp"

namespace c3::mpi {

class NativeBlocking {
 public:
  [[gnu::always_inline]] NativeBlocking() : stalling_(split::must_poll()) {
    if (stalling_) split::stall_senders();
  }
  [[gnu::always_inline]] ~NativeBlocking() {
    if (stalling_) split::end_stall();
  }
  NativeBlocking(const NativeBlocking &) = delete;
  NativeBlocking &operator=(const NativeBlocking &) = delete;

 private:
  bool stalling_;
};

}  // namespace c3::mpi
