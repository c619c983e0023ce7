/* probe_poll_race.c - a wildcard probe's match logged in RecvOnly-Log, and a restart that polls
 * fewer times than the logged run before that probe.
 *
 * Regression test for the randomized campaign's seed 19432 of 2026-11-28 (fixed in 125d909).
 * RecvOnly-Log logged a wildcard probe's match under the probe's call number, but it does not log
 * polls, so the restart's call numbers shift: a later probe with other arguments was given the
 * earlier probe's match and waited for a message already received. Now the match is found again
 * by the receive posting the probe came before and the probe's arguments.
 *
 * 2 ranks: rank 0 probes and prints, rank 1 sends. Each takes checkpoint 1 at its start.
 *  - Rank 1 sends TAG_M before its checkpoint, rank 0 receives it after its own: a late message,
 *    so rank 0 stays in RecvOnly-Log until it has received it.
 *  - Rank 0 polls for rank 1's TAG_X, sent after rank 1's All-Initiated. In the killed run,
 *    run_mpi_case.sh preloads delay_send_shim, which holds back that send for 1000 ms: rank 0
 *    leaves NonDet-Log and polls unlogged for about a second. The restart sends it at once.
 *  - Rank 0 then probes MPI_ANY_SOURCE for TAG_M: its receive shows the message was late, so
 *    the match is logged. Then it polls MPI_ANY_SOURCE for TAG_DONE, which rank 1 sends after
 *    1.5 s: in the restart those polls pass the call number the match was logged under.
 *  - C3_FAULT=site:2@0 kills rank 0 after that (its second pragma visit), checkpoint 1 committed
 *    on both ranks. With the old keying the restart's TAG_DONE poll at that call number waited
 *    for a second TAG_M from rank 1, which never comes: a hang.
 * The sleeps change only the timing: the plain mpicc build prints the same either way. Rank 0
 * prints everything, after the probes (the killed run prints nothing).
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "control_polls.h"

enum { TAG_X = 21, TAG_M = 22, TAG_DONE = 23 };

static void forced_checkpoint(void) {
#pragma ccc_checkpoint force
}

/* A plain pragma site: C3_FAULT=site:2 kills at its visit (the forced one is visit 1). */
static void site(void) {
#pragma ccc_checkpoint
}

/* Polls MPI_Iprobe(source, tag) until a message is there; returns its status. */
static MPI_Status poll_until(int source, int tag) {
  MPI_Status status;
  int flag = 0;
  for (;;) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &status);
    if (flag) return status;
    usleep(1000);
  }
}

static void prober(void) {
  long x, m, done;
  forced_checkpoint();
  poll_until(1, TAG_X);
  MPI_Recv(&x, 1, MPI_LONG, 1, TAG_X, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Status status;
  MPI_Probe(MPI_ANY_SOURCE, TAG_M, MPI_COMM_WORLD, &status);
  const int m_source = status.MPI_SOURCE;
  MPI_Recv(&m, 1, MPI_LONG, m_source, TAG_M, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  status = poll_until(MPI_ANY_SOURCE, TAG_DONE);
  MPI_Recv(&done, 1, MPI_LONG, status.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  site();
  printf("x %ld\n", x);
  printf("probed TAG_M from rank %d: %ld\n", m_source, m);
  printf("done from rank %d: %ld\n", status.MPI_SOURCE, done);
}

static void sender(void) {
  long m = 4242, x = 31, done = 1;
  MPI_Send(&m, 1, MPI_LONG, 0, TAG_M, MPI_COMM_WORLD);
  forced_checkpoint();
  poll_for_ms(20); /* every Checkpoint-Initiated read, All-Initiated sent */
  MPI_Send(&x, 1, MPI_LONG, 0, TAG_X, MPI_COMM_WORLD); /* held back in the killed run */
  poll_for_ms(1500); /* rank 0 polls past the logged call number meanwhile */
  MPI_Send(&done, 1, MPI_LONG, 0, TAG_DONE, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) printf("probe_poll_race needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0)
    prober();
  else
    sender();
  MPI_Finalize();
  return 0;
}
