/* Persistent requests around a ring: MPI_Send_init/MPI_Recv_init once, MPI_Startall and
 * MPI_Waitall every iteration, MPI_Start/MPI_Wait for a second pair, MPI_Request_free at the
 * end. Starts with MPI_Init_thread. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  double send[4], recv[4], ssend_value = 0, ssend_in = 0;
  MPI_Request ring[2], pair[2];
  MPI_Recv_init(recv, 4, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &ring[0]);
  MPI_Send_init(send, 4, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &ring[1]);
  MPI_Recv_init(&ssend_in, 1, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &pair[0]);
  MPI_Ssend_init(&ssend_value, 1, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &pair[1]);

  double total = 0, back = 0;
  for (int i = 0; i < 4; ++i) send[i] = rank * 4 + i;
  for (int iteration = 0; iteration < 20; ++iteration) {
    MPI_Startall(2, ring);
    MPI_Waitall(2, ring, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 4; ++i) {
      total += recv[i] * (iteration + 1);
      send[i] = recv[i] + 0.25;
    }
    ssend_value = total;
    MPI_Start(&pair[0]);
    MPI_Start(&pair[1]);
    MPI_Wait(&pair[1], MPI_STATUS_IGNORE);
    MPI_Wait(&pair[0], MPI_STATUS_IGNORE);
    back += ssend_in;
  }
  for (int k = 0; k < 2; ++k) {
    MPI_Request_free(&ring[k]);
    MPI_Request_free(&pair[k]);
  }
  if (ring[0] != MPI_REQUEST_NULL || pair[1] != MPI_REQUEST_NULL) MPI_Abort(MPI_COMM_WORLD, 8);

  double mine[2] = {total, back};
  if (rank == 0) {
    printf("thread level at least funneled: %d\n", provided >= MPI_THREAD_FUNNELED);
    for (int r = 0; r < size; ++r) {
      double theirs[2] = {mine[0], mine[1]};
      if (r > 0) MPI_Recv(theirs, 2, MPI_DOUBLE, r, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d: total %.3f back %.3f\n", r, theirs[0], theirs[1]);
    }
  } else {
    MPI_Send(mine, 2, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
