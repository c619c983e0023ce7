/* A nonblocking receive too small for its message, in a program that asked for errors to be
 * returned (MPI_ERRORS_RETURN): the message's c3 header did not arrive either, so c3 cannot go
 * on; it must end the job with MPI's reason (not blame a missing c3 header, not hang). Each
 * completion path: MPI_Waitall over small messages, MPI_Waitall over other requests, MPI_Wait,
 * and a blocking MPI_Recv (of a built-in type, and of a derived one). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char *how = argc > 1 ? argv[1] : "waitall";
  int big[4] = {1, 2, 3, 4}, small[2] = {0, 0};
  if (rank == 1) {
    MPI_Send(big, 4, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Send(big, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Request rq[2];
    MPI_Datatype pair;  /* a derived type keeps a receive off the small-message paths */
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    if (strcmp(how, "recv") == 0) {
      MPI_Recv(small, 2, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "recv-derived") == 0) {
      MPI_Recv(small, 1, pair, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "wait") == 0) {
      MPI_Irecv(small, 2, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[0]);
      MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    } else {
      MPI_Irecv(small, 2, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[0]);
      if (strcmp(how, "mixed") == 0)
        MPI_Irecv(small, 1, pair, 1, 2, MPI_COMM_WORLD, &rq[1]);
      else
        MPI_Irecv(small, 2, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Type_free(&pair);
  }
  printf("rank %d went on\n", rank);
  MPI_Finalize();
  return 0;
}
