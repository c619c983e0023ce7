/* MPI_Comm_split into even and odd ranks, collectives and point-to-point inside each half,
 * MPI_Comm_dup, MPI_Comm_free. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm half, copy;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* key -rank: reversed order */
  MPI_Comm_dup(half, &copy);
  int half_rank, half_size;
  MPI_Comm_rank(copy, &half_rank);
  MPI_Comm_size(copy, &half_size);

  int value = (rank + 1) * 7, half_sum = 0;
  MPI_Allreduce(&value, &half_sum, 1, MPI_INT, MPI_SUM, copy);
  int token = half_rank == 0 ? 1000 + rank : -1;
  MPI_Bcast(&token, 1, MPI_INT, 0, copy);
  int neighbour = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, (half_rank + 1) % half_size, 3, &neighbour, 1, MPI_INT,
               (half_rank + half_size - 1) % half_size, 3, half, MPI_STATUS_IGNORE);

  int mine[5] = {rank % 2, half_rank, half_size, half_sum, token}, row[6];
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      int theirs[6] = {mine[0], mine[1], mine[2], mine[3], mine[4], neighbour};
      if (r > 0) MPI_Recv(theirs, 6, MPI_INT, r, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("world %d: colour %d rank %d of %d, sum %d, token %d, left neighbour %d\n", r,
             theirs[0], theirs[1], theirs[2], theirs[3], theirs[4], theirs[5]);
    }
  } else {
    for (int i = 0; i < 5; ++i) row[i] = mine[i];
    row[5] = neighbour;
    MPI_Send(row, 6, MPI_INT, 0, 4, MPI_COMM_WORLD);
  }
  MPI_Comm_free(&copy);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
