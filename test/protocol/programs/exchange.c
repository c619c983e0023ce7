/* Nonblocking all-to-all exchange: MPI_Isend/MPI_Irecv completed by MPI_Testsome in one round,
 * MPI_Waitall in the next, MPI_Waitany and MPI_Test in the last. Rank 0 prints checksums. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

static long checksum(const int *data, int n) {
  long sum = 0;
  for (int i = 0; i < n; ++i) sum = sum * 31 + data[i];
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *out = malloc(sizeof(int) * N * size), *in = malloc(sizeof(int) * N * size);
  MPI_Request *requests = malloc(sizeof(MPI_Request) * 2 * size);
  MPI_Status *statuses = malloc(sizeof(MPI_Status) * 2 * size);
  int *indices = malloc(sizeof(int) * 2 * size);
  long sums[3] = {0, 0, 0};

  for (int round = 0; round < 3; ++round) {
    int n = 0;
    for (int peer = 0; peer < size; ++peer) {
      for (int i = 0; i < N; ++i) out[peer * N + i] = rank * 100000 + peer * 1000 + i + round;
      MPI_Irecv(in + peer * N, N, MPI_INT, peer, round, MPI_COMM_WORLD, &requests[n++]);
      MPI_Isend(out + peer * N, N, MPI_INT, peer, round, MPI_COMM_WORLD, &requests[n++]);
    }
    if (round == 0) {
      int done = 0;
      while (done < n) {
        int outcount;
        MPI_Testsome(n, requests, &outcount, indices, statuses);
        if (outcount == MPI_UNDEFINED) break;
        for (int k = 0; k < outcount; ++k)
          if (requests[indices[k]] != MPI_REQUEST_NULL) MPI_Abort(MPI_COMM_WORLD, 3);
        done += outcount;
      }
      if (done != n) MPI_Abort(MPI_COMM_WORLD, 4);
    } else if (round == 1) {
      MPI_Waitall(n, requests, statuses);
      for (int k = 0; k < n; k += 2)
        if (statuses[k].MPI_SOURCE != k / 2 || statuses[k].MPI_TAG != round)
          MPI_Abort(MPI_COMM_WORLD, 5);
    } else {
      for (int k = 0; k < n / 2; ++k) {
        int index;
        MPI_Waitany(n, requests, &index, MPI_STATUS_IGNORE);
      }
      for (int k = 0; k < n; ++k) {
        int flag = 0;
        while (!flag) MPI_Test(&requests[k], &flag, MPI_STATUS_IGNORE);
      }
    }
    sums[round] = checksum(in, N * size);
  }

  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      long theirs[3] = {sums[0], sums[1], sums[2]};
      if (r > 0) MPI_Recv(theirs, 3, MPI_LONG, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d received %ld %ld %ld\n", r, theirs[0], theirs[1], theirs[2]);
    }
  } else {
    MPI_Send(sums, 3, MPI_LONG, 0, 99, MPI_COMM_WORLD);
  }
  free(out); free(in); free(requests); free(statuses); free(indices);
  MPI_Finalize();
  return 0;
}
