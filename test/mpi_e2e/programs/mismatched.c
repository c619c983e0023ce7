/* mismatched.c - collectives called with arguments that do not match across ranks.
 *
 * Under MPI_ERRORS_RETURN: an MPI_Bcast whose root sends more than the others receive (MPICH
 * reports truncation on the receivers), and an MPI_Allreduce whose ranks name different
 * datatypes of the same size (MPICH does not notice). c3 passes both to MPICH and must report
 * what plain MPICH reports; the results are gathered on rank 0 and printed after a forced
 * checkpoint of every rank, with a collective on each side of it.
 */
#include <mpi.h>
#include <stdio.h>

enum { CALLS = 3 };

static int error_class(int rc) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  return cls;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int outcome[CALLS];
  int buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = rank == 0 ? 10 * (i + 1) : -1;
  outcome[0] = error_class(MPI_Bcast(buf, rank == 0 ? 8 : 4, MPI_INT, 0, MPI_COMM_WORLD));

  int mine = rank + 1, sum = 0;
  outcome[1] = error_class(
      MPI_Allreduce(&mine, &sum, 1, rank == 0 ? MPI_INT : MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD));

#pragma ccc_checkpoint force

  int count = 0;  // agreed after the checkpoint: every rank's outcomes reach rank 0
  outcome[2] = error_class(MPI_Allreduce(&mine, &count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  int all[CALLS * 16];
  MPI_Gather(outcome, CALLS, MPI_INT, all, CALLS, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size && r < 16; ++r)
      printf("rank %d: bcast class %d, allreduce class %d, then class %d\n", r, all[CALLS * r],
             all[CALLS * r + 1], all[CALLS * r + 2]);
    printf("bcast got %d %d %d %d, sum %d, count %d\n", buf[0], buf[1], buf[2], buf[3], sum,
           count);
  }
  MPI_Finalize();
  return 0;
}
