/* A ring: every rank passes values to its right neighbour with MPI_Sendrecv and back to the left
 * with MPI_Sendrecv_replace; rank 0 collects every rank's sums with MPI_Send/MPI_Recv. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  long value = 1000 + rank, received = 0, sum_right = 0, sum_left = 0;
  double block[8];
  for (int i = 0; i < 8; ++i) block[i] = rank + i / 8.0;
  for (int round = 0; round < 3 * size; ++round) {
    MPI_Status status;
    MPI_Sendrecv(&value, 1, MPI_LONG, right, round, &received, 1, MPI_LONG, left, round,
                 MPI_COMM_WORLD, &status);
    if (status.MPI_SOURCE != left || status.MPI_TAG != round) MPI_Abort(MPI_COMM_WORLD, 2);
    sum_right += received * (round + 1);
    value = received + round;
    MPI_Sendrecv_replace(block, 8, MPI_DOUBLE, left, 100 + round, right, 100 + round,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 8; ++i) block[i] = block[i] * 1.5 + round;
    sum_left += (long)block[round % 8];
  }

  long mine[2] = {sum_right, sum_left};
  if (rank == 0) {
    printf("ring of %d\n", size);
    for (int r = 0; r < size; ++r) {
      long theirs[2] = {mine[0], mine[1]};
      if (r > 0) MPI_Recv(theirs, 2, MPI_LONG, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d: right %ld left %ld\n", r, theirs[0], theirs[1]);
    }
  } else {
    MPI_Send(mine, 2, MPI_LONG, 0, 7, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
