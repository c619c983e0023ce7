/* One-sided communication, which c3 cannot restore yet: the program runs unchanged, but no
 * checkpoint is taken after MPI_Win_create, and the pragma says why. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long v = rank, s = 0;
  MPI_Win win;
  MPI_Win_create(&v, sizeof v, sizeof v, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Win_fence(0, win);
  MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
#pragma ccc_checkpoint force
  if (rank == 0) printf("sum %ld\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
