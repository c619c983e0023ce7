/* An MPI job for `c3 run`: a token goes round the ranks 40 times; every rank appends each round
 * to a file of its own (opened once, kept open) and rank 0 prints the token. A checkpoint at
 * every round. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[32];
  snprintf(name, sizeof name, "ring.%d.txt", rank);
  FILE *log = fopen(name, "w");
  long token = 1;
  for (int round = 1; round <= 40; ++round) {
    if (rank == 0) {
      MPI_Send(&token, 1, MPI_LONG, 1 % size, round, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, size - 1, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("round %d: token %ld\n", round, token);
    } else {
      MPI_Recv(&token, 1, MPI_LONG, rank - 1, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token = token * 3 % 1000003 + rank;
      MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, round, MPI_COMM_WORLD);
    }
    fprintf(log, "round %d: token %ld\n", round, token);
    usleep(20000);
#pragma ccc_checkpoint force
  }
  fclose(log);
  MPI_Finalize();
  return 0;
}
