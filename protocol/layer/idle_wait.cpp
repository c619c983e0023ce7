#include "layer/idle_wait.hpp"

#include <algorithm>
#include <ctime>

namespace c3::mpi {

void IdleBackoff::pause() {
  constexpr int kPollsBeforeSleeping = 200;
  constexpr int64_t kLongestPauseNs = 1000 * 1000;
  if (polls_ < kPollsBeforeSleeping) {
    ++polls_;
    return;
  }
  sleep_ns_ = std::min(kLongestPauseNs, sleep_ns_ == 0 ? int64_t(2000) : sleep_ns_ * 2);
  timespec pause{0, long(sleep_ns_)};
  nanosleep(&pause, nullptr);
}

void idle_wait(MPI_Request &request, MPI_Status *st) {
  IdleBackoff backoff;
  for (int done = 0;;) {
    PMPI_Test(&request, &done, st);
    if (done) return;
    backoff.pause();
  }
}

}  // namespace c3::mpi
