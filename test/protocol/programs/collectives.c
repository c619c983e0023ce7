/* Collectives (all of them go through the unsupported-call wrappers): MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Gather, MPI_Scatter, MPI_Allgather, MPI_Alltoall, MPI_Barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int params[3] = {0, 0, 0};
  if (rank == 0) {
    params[0] = 17;
    params[1] = 5;
    params[2] = 1000;
  }
  MPI_Bcast(params, 3, MPI_INT, 0, MPI_COMM_WORLD);

  double local = 0;
  for (int i = 0; i < params[2]; ++i) local += (double)((rank + 1) * params[0] + i % params[1]) / (i + 1);
  double sum = 0, max = 0, everywhere = 0;
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&local, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&local, &everywhere, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  int *gathered = malloc(sizeof(int) * size), *scattered = malloc(sizeof(int) * size);
  int *all = malloc(sizeof(int) * size), *to = malloc(sizeof(int) * size),
      *from = malloc(sizeof(int) * size);
  int mine = rank * rank + params[0], piece = -1;
  MPI_Gather(&mine, 1, MPI_INT, gathered, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) scattered[r] = 3 * r + 1;
  MPI_Scatter(scattered, 1, MPI_INT, &piece, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgather(&piece, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) to[r] = rank * 10 + r;
  MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Every rank checks what it got; rank 0 prints. */
  int ok = everywhere > 0;
  for (int r = 0; r < size; ++r) ok = ok && all[r] == 3 * r + 1 && from[r] == r * 10 + rank;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("params %d %d %d\n", params[0], params[1], params[2]);
    printf("sum %.6f max %.6f allreduce %.6f\n", sum, max, everywhere);
    printf("gathered");
    for (int r = 0; r < size; ++r) printf(" %d", gathered[r]);
    printf("\nall ranks consistent: %d\n", all_ok);
  }
  free(gathered); free(scattered); free(all); free(to); free(from);
  MPI_Finalize();
  return 0;
}
