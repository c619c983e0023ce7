/* step_report.h - rank 0 prints one line per step with every rank's checksum of that step.
 *
 * Each rank other than 0 sends its checksum with `tag`; rank 0 receives them in rank order and
 * prints "step S: rank 0 X rank 1 Y ...", flushed, so a killed run's output ends at a whole step. */
#ifndef C3_E2E_STEP_REPORT_H
#define C3_E2E_STEP_REPORT_H

#include <mpi.h>
#include <stdio.h>

static void report_step(int step, unsigned long sum, int rank, int size, int tag) {
  if (rank == 0) {
    printf("step %d: rank 0 %016lx", step, sum);
    for (int r = 1; r < size; ++r) {
      unsigned long theirs = 0;
      MPI_Recv(&theirs, 1, MPI_UNSIGNED_LONG, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf(" rank %d %016lx", r, theirs);
    }
    printf("\n");
    fflush(stdout);
  } else {
    MPI_Send(&sum, 1, MPI_UNSIGNED_LONG, 0, tag, MPI_COMM_WORLD);
  }
}

#endif
