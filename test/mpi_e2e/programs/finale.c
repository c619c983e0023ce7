/* finale.c - checkpoints that can never complete because the program ends first.
 *
 * A ring exchange with one staggered forced checkpoint per rank (step 3 + rank), then:
 *   rank 0 takes a forced checkpoint, receives a last message from every other rank (sent after
 *          their loop, without any checkpoint) and prints it;
 *   the last rank (if there are more than two) takes a forced checkpoint right before
 *          MPI_Finalize;
 *   the other ranks reach MPI_Finalize without another checkpoint.
 * Checkpoint 2 can therefore never be committed. MPI_Finalize must give it up without hanging,
 * the program must exit 0, and everything rank 0 printed after checkpoint 1 must still appear.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 10
#define MODULUS 1000003L

enum { TAG_RING = 71, TAG_REPORT = 72, TAG_LAST = 73 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  long value = 11 + rank;

  for (int step = 1; step <= STEPS; ++step) {
    if (step == 3 + rank) {
#pragma ccc_checkpoint force
    }
    long from_left, from_right;
    MPI_Sendrecv(&value, 1, MPI_LONG, right, TAG_RING, &from_left, 1, MPI_LONG, left, TAG_RING,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&value, 1, MPI_LONG, left, TAG_RING, &from_right, 1, MPI_LONG, right, TAG_RING,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    value = (value * 13 + from_left * 3 + from_right * 5 + step) % MODULUS;
    if (rank != 0) {
      MPI_Send(&value, 1, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
    } else {
      printf("step %2d: %7ld", step, value);
      for (int r = 1; r < size; ++r) {
        long theirs;
        MPI_Recv(&theirs, 1, MPI_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf(" %7ld", theirs);
      }
      printf("\n");
    }
  }

  if (rank == 0) {
#pragma ccc_checkpoint force
    for (int r = 1; r < size; ++r) {
      long last;
      MPI_Recv(&last, 1, MPI_LONG, r, TAG_LAST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("last word of rank %d: %ld\n", r, last);
    }
    printf("done\n");
  } else {
    long last = value * 2 + rank;
    MPI_Send(&last, 1, MPI_LONG, 0, TAG_LAST, MPI_COMM_WORLD);
    if (rank == size - 1 && size > 2) {
#pragma ccc_checkpoint force
    }
  }
  MPI_Finalize();
  return 0;
}
