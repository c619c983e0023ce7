// While the program waits in a blocking MPICH call that c3 cannot turn into a polling loop (a
// blocking collective, a communicator creation), a receive of this process may get the header
// of a large message whose payload only c3 can post the receive for, and the sender may not
// reach the collective before that payload is taken. A helper thread then takes c3's place:
// it completes arrived headers until the call returns (MPI is initialized with
// MPI_THREAD_MULTIPLE for it; the program still sees the thread level it asked for). The main
// thread is inside MPICH meanwhile and touches no c3 state, and the helper stops before the
// call's wrapper goes on.
#pragma once
#include "messages/split_transfer.hpp"

namespace c3::mpi {

// Whether MPI gave c3 MPI_THREAD_MULTIPLE (set at MPI initialization); without it, large
// messages are not split (nothing would need the helper).
void set_helper_available(bool available);
bool helper_available();
void stop_helper();  // MPI_Finalize

class NativeBlocking {
 public:
  [[gnu::always_inline]] NativeBlocking() : helping_(split::must_poll() && helper_available()) {
    if (helping_) begin_helping();
  }
  [[gnu::always_inline]] ~NativeBlocking() {
    if (helping_) end_helping();
  }
  NativeBlocking(const NativeBlocking &) = delete;
  NativeBlocking &operator=(const NativeBlocking &) = delete;

 private:
  static void begin_helping();
  static void end_helping();
  bool helping_;
};

}  // namespace c3::mpi
