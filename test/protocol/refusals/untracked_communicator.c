/* A communicator c3 cannot restore yet: the program runs unchanged, but no checkpoint is taken
 * after MPI_Comm_dup, and the pragma says why. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm dup; MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  long v = rank, s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, dup);
#pragma ccc_checkpoint force
  if (rank == 0) printf("sum %ld\n", s);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
