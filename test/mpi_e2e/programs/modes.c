/* modes.c - send modes and request kinds around a ring, one of each per step:
 *   persistent requests (MPI_Send_init/MPI_Recv_init, created once, MPI_Startall every step;
 *       the forced checkpoint sits between MPI_Startall and MPI_Waitall, so they are active
 *       while it is taken),
 *   MPI_Sendrecv_replace of a token array,
 *   MPI_Ssend (even ranks send first, odd ranks receive first),
 *   MPI_Bsend from a buffer given with MPI_Buffer_attach,
 *   MPI_Sendrecv,
 *   and reports to rank 0 of a length that varies, taken with MPI_Probe(MPI_ANY_SOURCE) or an
 *       MPI_Iprobe loop, MPI_Get_count and MPI_Recv from the probed source, printed in rank
 *       order (matched probes are in matched.c).
 * Forced checkpoints are staggered by rank (step % PERIOD == 3 + rank).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 26
#define PERIOD 8
#define TOKEN 5
#define MAX_REPORT 8
#define MAX_RANKS 8

enum { TAG_PERSISTENT = 41, TAG_TOKEN = 42, TAG_SYNC = 43, TAG_BUFFERED = 44, TAG_PAIR = 45,
       TAG_REPORT = 46 };

static long persistent_out[3], persistent_in[3];

static long report_length(int rank, int step) { return 1 + (rank * 3 + step) % MAX_REPORT; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > MAX_RANKS) {
    printf("modes needs 2 to %d ranks\n", MAX_RANKS);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int left = (rank + size - 1) % size, right = (rank + 1) % size;

  int buffer_size = 4 * ((int)sizeof(long) * 2 + MPI_BSEND_OVERHEAD);
  char *bsend_buffer = malloc(buffer_size);
  MPI_Buffer_attach(bsend_buffer, buffer_size);

  MPI_Request persistent[2];
  MPI_Recv_init(persistent_in, 3, MPI_LONG, left, TAG_PERSISTENT, MPI_COMM_WORLD, &persistent[0]);
  MPI_Send_init(persistent_out, 3, MPI_LONG, right, TAG_PERSISTENT, MPI_COMM_WORLD,
                &persistent[1]);

  int token[TOKEN];
  for (int i = 0; i < TOKEN; ++i) token[i] = rank * 10 + i;
  long value = 7 + rank, sync_in = 0, buffered[2], pair_in[2], pair_out[2];
  long (*reports)[MAX_REPORT] = malloc(size * sizeof *reports);

  for (int step = 1; step <= STEPS; ++step) {
    persistent_out[0] = value;
    persistent_out[1] = step;
    persistent_out[2] = value ^ 0x5555;
    MPI_Startall(2, persistent);
    if (step % PERIOD == 3 + rank) {
#pragma ccc_checkpoint force
    }
    MPI_Status statuses[2];
    MPI_Waitall(2, persistent, statuses);
    if (statuses[0].MPI_SOURCE != left || statuses[0].MPI_TAG != TAG_PERSISTENT ||
        persistent_in[1] != step) {
      printf("rank %d step %d: persistent receive from %d tag %d step %ld\n", rank, step,
             statuses[0].MPI_SOURCE, statuses[0].MPI_TAG, persistent_in[1]);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    value = (value * 5 + persistent_in[0] + persistent_in[2] % 97) % 1000003;

    MPI_Sendrecv_replace(token, TOKEN, MPI_INT, right, TAG_TOKEN, left, TAG_TOKEN, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    token[step % TOKEN] += (int)(value % 100);

    if (rank % 2 == 0) {
      MPI_Ssend(&value, 1, MPI_LONG, right, TAG_SYNC, MPI_COMM_WORLD);
      MPI_Recv(&sync_in, 1, MPI_LONG, left, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&sync_in, 1, MPI_LONG, left, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Ssend(&value, 1, MPI_LONG, right, TAG_SYNC, MPI_COMM_WORLD);
    }

    long to_left[2] = {value + sync_in, step * 1000L + rank};
    MPI_Bsend(to_left, 2, MPI_LONG, left, TAG_BUFFERED, MPI_COMM_WORLD);
    MPI_Recv(buffered, 2, MPI_LONG, right, TAG_BUFFERED, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    pair_out[0] = buffered[0] % 65536;
    pair_out[1] = token[0];
    MPI_Sendrecv(pair_out, 2, MPI_LONG, right, TAG_PAIR, pair_in, 2, MPI_LONG, left, TAG_PAIR,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    value = (value + sync_in * 3 + buffered[0] + pair_in[0] + pair_in[1]) % 1000003;

    long report[MAX_REPORT];
    long length = report_length(rank, step);
    for (int i = 0; i < length; ++i) report[i] = value + token[i % TOKEN] * (i + 1);
    if (rank != 0) {
      MPI_Send(report, (int)length, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
      continue;
    }
    for (int i = 0; i < length; ++i) reports[0][i] = report[i];
    for (int received = 1; received < size; ++received) {
      MPI_Status status;
      if (step % 2 == 0) {
        MPI_Probe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &status);
      } else {
        int found = 0;
        while (!found) MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &found, &status);
      }
      int count, from = status.MPI_SOURCE;
      MPI_Get_count(&status, MPI_LONG, &count);
      if (from <= 0 || from >= size || count != report_length(from, step)) {
        printf("step %d: report from %d with %d values\n", step, from, count);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      MPI_Recv(reports[from], count, MPI_LONG, from, TAG_REPORT, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    printf("step %2d:", step);
    for (int r = 0; r < size; ++r) {
      long sum = 0;
      for (int i = 0; i < report_length(r, step); ++i) sum += reports[r][i];
      printf(" %ld", sum);
    }
    printf("\n");
  }

  MPI_Request_free(&persistent[0]);
  MPI_Request_free(&persistent[1]);
  void *detached;
  int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);
  if (detached != bsend_buffer || detached_size != buffer_size) MPI_Abort(MPI_COMM_WORLD, 4);
  free(bsend_buffer);

  int tokens[TOKEN];
  if (rank != 0) {
    MPI_Send(token, TOKEN, MPI_INT, 0, TAG_TOKEN, MPI_COMM_WORLD);
  } else {
    for (int r = 0; r < size; ++r) {
      if (r == 0)
        for (int i = 0; i < TOKEN; ++i) tokens[i] = token[i];
      else
        MPI_Recv(tokens, TOKEN, MPI_INT, r, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d token:", r);
      for (int i = 0; i < TOKEN; ++i) printf(" %d", tokens[i]);
      printf("\n");
    }
  }
  free(reports);
  MPI_Finalize();
  return 0;
}
