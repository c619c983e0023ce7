/* intercomm.c - collectives on an intercommunicator and on its merge, across checkpoints.
 *
 * MPI_COMM_WORLD splits into even and odd ranks; MPI_Intercomm_create joins the halves and
 * MPI_Intercomm_merge makes an intracommunicator of the result. Every step runs MPI_Allreduce,
 * MPI_Bcast (root MPI_ROOT / MPI_PROC_NULL on the sending side), MPI_Allgather and a pending
 * MPI_Iallreduce on the intercommunicator and MPI_Allreduce on the merged one. Each rank takes
 * forced checkpoints at steps of its own (3 + rank, and between the MPI_Iallreduce and its
 * MPI_Wait at step 8 or 9), so collectives span every checkpoint. Rank 0 prints a checksum of
 * all ranks per step.
 */
#include <mpi.h>
#include <stdio.h>

#define STEPS 12

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int color = rank % 2;
  MPI_Comm half, inter, merged;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
  MPI_Intercomm_merge(inter, color, &merged);
  int hrank, mrank;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_rank(merged, &mrank);
  long acc = 1 + rank;
  for (int step = 1; step <= STEPS; ++step) {
    /* a checkpoint at a different step on each rank: collectives span it */
    if (step == 3 + rank) {
#pragma ccc_checkpoint force
    }
    long mine = acc * (step + rank), sum = 0, got = 0, all[16] = {0};
    /* Allreduce on the intercommunicator: each group gets the other group's sum */
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, inter);
    /* Bcast from group 0's first rank to group 1 */
    long value = acc * 7 + step;
    if (color == 0)
      MPI_Bcast(&value, 1, MPI_LONG, hrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    else
      MPI_Bcast(&got, 1, MPI_LONG, 0, inter);
    /* Allgather on the intercommunicator: the other group's values */
    MPI_Allgather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, inter);
    MPI_Request r;
    long isum = 0;
    MPI_Iallreduce(&mine, &isum, 1, MPI_LONG, MPI_MAX, inter, &r);
    if (step == 8 + (rank % 2)) {
#pragma ccc_checkpoint force
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    long msum = 0;
    MPI_Allreduce(&mine, &msum, 1, MPI_LONG, MPI_SUM, merged);
    acc = (acc * 31 + sum + got + all[0] + all[1] + isum + msum) % 1000003;
    long total = 0;
    MPI_Reduce(&acc, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("step %2d total %ld\n", step, total);
  }
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
