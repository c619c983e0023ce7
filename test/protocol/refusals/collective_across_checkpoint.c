/* Rank 0 checkpoints before MPI_Allreduce, rank 1 after: a restart would run it on one side
 * only. The job must end with an error naming the call, not hang or corrupt a restart. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long v = rank, s = 0;
  if (rank == 0) {
#pragma ccc_checkpoint force
  }
  MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 1) {
#pragma ccc_checkpoint force
  }
  if (rank == 0) printf("sum %ld\n", s);
  MPI_Finalize();
  return 0;
}
