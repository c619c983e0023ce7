/* matched.c - matched probes: MPI_Mprobe/MPI_Improbe and MPI_Mrecv/MPI_Imrecv.
 *
 * Every step each rank sends its right neighbour a message whose length depends on its data,
 * and every rank but 0 sends rank 0 a report. The neighbour's message is taken with MPI_Mprobe
 * (even steps) or an MPI_Improbe polling loop (odd steps), its length read from the status, and
 * received with MPI_Mrecv or MPI_Imrecv + MPI_Wait. Rank 0 takes the reports with
 * MPI_Mprobe(MPI_ANY_SOURCE) + MPI_Mrecv in arrival order and prints them in rank order.
 * Forced checkpoints are staggered by rank (step % PERIOD == 3 + rank).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 18
#define PERIOD 8
#define MAX_LENGTH 9
#define MAX_RANKS 8
#define MODULUS 1000003L

/* reports of step s carry tag TAG_REPORT + s: a rank may run a step ahead of rank 0 */
enum { TAG_NEIGHBOUR = 81, TAG_REPORT = 100 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > MAX_RANKS) {
    printf("matched needs 2 to %d ranks\n", MAX_RANKS);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  long *values = malloc(MAX_LENGTH * sizeof *values);
  for (int i = 0; i < MAX_LENGTH; ++i) values[i] = rank * 17 + i;
  long incoming[MAX_LENGTH], reports[MAX_RANKS];

  for (int step = 1; step <= STEPS; ++step) {
    if (step % PERIOD == 3 + rank) {
#pragma ccc_checkpoint force
    }
    int length = 1 + (int)(values[0] % MAX_LENGTH);
    MPI_Request sent;
    MPI_Isend(values, length, MPI_LONG, right, TAG_NEIGHBOUR, MPI_COMM_WORLD, &sent);

    MPI_Message message;
    MPI_Status status;
    int count;
    if (step % 2 == 0) {
      MPI_Mprobe(left, TAG_NEIGHBOUR, MPI_COMM_WORLD, &message, &status);
      MPI_Get_count(&status, MPI_LONG, &count);
      MPI_Mrecv(incoming, count, MPI_LONG, &message, MPI_STATUS_IGNORE);
    } else {
      int found = 0;
      while (!found) MPI_Improbe(left, TAG_NEIGHBOUR, MPI_COMM_WORLD, &found, &message, &status);
      MPI_Get_count(&status, MPI_LONG, &count);
      MPI_Request received;
      MPI_Imrecv(incoming, count, MPI_LONG, &message, &received);
      MPI_Wait(&received, MPI_STATUS_IGNORE);
    }
    if (count < 1 || count > MAX_LENGTH || status.MPI_SOURCE != left) {
      printf("rank %d step %d: %d values from %d\n", rank, step, count, status.MPI_SOURCE);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Wait(&sent, MPI_STATUS_IGNORE);
    for (int i = 0; i < MAX_LENGTH; ++i)
      values[i] = (values[i] * 5 + incoming[i % count] + count + step) % MODULUS;

    long report = values[step % MAX_LENGTH];
    if (rank != 0) {
      MPI_Send(&report, 1, MPI_LONG, 0, TAG_REPORT + step, MPI_COMM_WORLD);
      continue;
    }
    reports[0] = report;
    for (int received = 1; received < size; ++received) {
      MPI_Mprobe(MPI_ANY_SOURCE, TAG_REPORT + step, MPI_COMM_WORLD, &message, &status);
      MPI_Mrecv(&reports[status.MPI_SOURCE], 1, MPI_LONG, &message, MPI_STATUS_IGNORE);
    }
    printf("step %2d:", step);
    for (int r = 0; r < size; ++r) printf(" %7ld", reports[r]);
    printf("\n");
  }
  free(values);
  MPI_Finalize();
  return 0;
}
