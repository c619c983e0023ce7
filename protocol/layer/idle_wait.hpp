// c3's own waits for other ranks (MPI_Finalize's rounds, the restart's agreement, control
// messages of a checkpoint that must commit before the job ends) poll MPICH and sleep between
// polls, with pauses that grow to a millisecond: a blocking MPICH call would poll at full speed
// and take a core from ranks that still work (on 2 cores, two ranks spinning in c3's finalize
// made the two working ones 1.9 times slower), where plain MPICH's MPI_Finalize waits asleep.
#pragma once
#include <mpi.h>

#include <cstdint>

namespace c3::mpi {

class IdleBackoff {
 public:
  // After a poll that found nothing: returns at once for the first polls (a peer that is close
  // answers without a sleep), then sleeps 2, 4, ... microseconds, up to 1 ms per pause.
  void pause();

 private:
  int polls_ = 0;
  int64_t sleep_ns_ = 0;
};

// Waits for `request` (c3's own) the idle way; `st` may be MPI_STATUS_IGNORE.
void idle_wait(MPI_Request &request, MPI_Status *st);

}  // namespace c3::mpi
