/* late_finale.c - a checkpoint that one rank takes right before MPI_Finalize, long before the
 * others take it.
 *
 * A ring exchange, then every rank takes one forced checkpoint: the last rank at once, followed
 * by MPI_Finalize; the others only after 300 ms. The last rank is then in MPI_Finalize with the
 * checkpoint in progress (its peers' Checkpoint-Initiated has not come). MPI_Finalize must keep
 * serving the protocol there, so checkpoint 1 commits on every rank (it used to be abandoned:
 * seed 1021 of the campaign on 6d8e090); rank 0 prints "done" after it.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define STEPS 6
#define MODULUS 1000003L

enum { TAG_RING = 81, TAG_REPORT = 82 };

static void pause_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  long value = 7 + rank;
  for (int step = 1; step <= STEPS; ++step) {
    long incoming;
    MPI_Sendrecv(&value, 1, MPI_LONG, right, TAG_RING, &incoming, 1, MPI_LONG, left, TAG_RING,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    value = (value * 17 + incoming * 3 + step) % MODULUS;
    if (rank == 0) printf("step %d: %ld\n", step, value);
  }
  /* every rank's value reaches rank 0 before the checkpoint */
  if (rank != 0) {
    MPI_Send(&value, 1, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
  } else {
    for (int r = 1; r < size; ++r) {
      long theirs;
      MPI_Recv(&theirs, 1, MPI_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d ends with %ld\n", r, theirs);
    }
  }

  if (rank != size - 1) pause_ms(300);
#pragma ccc_checkpoint force
  if (rank == 0) printf("done: %ld\n", value);
  MPI_Finalize();
  return 0;
}
