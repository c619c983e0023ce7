/* control_polls.h - give c3 a chance to read its control messages while a rank waits.
 *
 * The timing tests need a rank to take in the others' Checkpoint-Initiated, All-Initiated and
 * Logging-Ended at a chosen point: c3 reads them inside MPI calls only. poll_for_ms makes one
 * MPI_Iprobe per millisecond on a tag no test program sends (and, while a large receive is
 * pending, lets c3 complete arrived split headers). */
#ifndef C3_E2E_CONTROL_POLLS_H
#define C3_E2E_CONTROL_POLLS_H

#include <mpi.h>
#include <unistd.h>

enum { CONTROL_POLL_TAG = 999 };

static void poll_for_ms(int ms) {
  for (int i = 0; i < ms; ++i) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, CONTROL_POLL_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    usleep(1000);
  }
}

#endif
