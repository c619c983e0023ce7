/* wildcard_order.c - two MPI_ANY_SOURCE receives on one tag; the later one completes first.
 *
 * Regression test for settle_earlier_wildcards (protocol/requests.cpp, 768c4c4).
 * Rank 0 posts two wildcard receives on one tag, A then B; A matches rank 1's message, B rank
 * 2's. B completes while rank 0 logs (NonDet-Log), so B's match "source 2" is logged; A was
 * completed only after logging ended, so nothing was logged for A. A restart then pinned B to
 * rank 2 and left A a free wildcard: when rank 2's message came first, A took it and B waited
 * forever (hang). With the fix, c3 completes every earlier-posted wildcard receive that could
 * have taken B's message (MPI matched it already) and logs its match before B's.
 *
 * 3 ranks, two phases with one checkpoint each on every rank:
 *  - Rank 0 lets ranks 1 and 2 go (they checkpoint at once) and checkpoints 200 ms later, so it
 *    posts A and B in NonDet-Log. Ranks 1 and 2 send, then sleep 600 ms without entering MPI:
 *    only when they poll afterwards do they read rank 0's Checkpoint-Initiated and answer with
 *    All-Initiated, so rank 0 logs until then, B completes well before that, and rank 0 commits
 *    while it polls 1 s more. Each rank tells rank 0 it is done after its poll (committed).
 *  - Phase 1, a split message: A and B have 64 KiB buffers; rank 1 sends 64 KiB (above c3's
 *    16 KiB limit: a split header, then the payload), rank 2 four longs. Rank 0 polls with
 *    MPI_Iprobe on an unused tag; c3's split progress in those calls completes B (inline
 *    message) and A's header but not A's payload, which without the fix completed only in
 *    MPI_Wait(A), after the commit.
 *  - Phase 2, small messages: 8000-byte buffers (no split); rank 0 completes B itself with an
 *    MPI_Test loop, A with MPI_Wait after the commit.
 * The test gives the killed run WILDCARD_LATE_RANK=2 (rank 2 sends 300 ms late: A gets rank 1's
 * message) and the restarts WILDCARD_LATE_RANK=1 (rank 2's message comes first).
 * C3_FAULT=site:2@0 kills rank 0 after phase 1 (checkpoint 1 committed everywhere: the restart
 * replays phase 1); site:4@0 kills it after phase 2 (the restart replays phase 2). The sleeps
 * change only the timing: the plain mpicc build prints the same whatever matches what. Rank 0
 * prints everything, in an order that does not depend on the matches.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control_polls.h"
#include "start_env.h"

#define SPLIT_LONGS 8192 /* 64 KiB: travels split */
#define SMALL_LONGS 1000 /* 8000 bytes: one message with its header */
#define FEW_LONGS 4

enum { TAG_WARMUP = 40, TAG_GO = 41, TAG_SPLIT = 42, TAG_SMALL = 43, TAG_DONE = 44 };

static long buffer_a[SPLIT_LONGS], buffer_b[SPLIT_LONGS], outgoing[SPLIT_LONGS];

static void forced_checkpoint(void) {
#pragma ccc_checkpoint force
}

/* A plain pragma site: C3_FAULT=site:N counts its visits together with the forced ones. */
static void site(void) {
#pragma ccc_checkpoint
}

/* The value of WILDCARD_LATE_RANK this process was started with (the restart sets its own), or
 * -1. */
static int late_rank(void) {
  char value[16];
  return start_env("WILDCARD_LATE_RANK", value, sizeof value) ? atoi(value) : -1;
}

static long sum_of(const long *values, int n) {
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += values[i];
  return sum;
}

/* Rank 0's side of a phase: A then B on MPI_ANY_SOURCE; prints what came, smaller one first. */
static void receive_two(const char *phase, int tag, int capacity, int program_tests_b) {
  MPI_Request receive_a, receive_b;
  MPI_Status status_a, status_b;
  /* Only now may ranks 1 and 2 checkpoint: had they started before rank 0's site() below,
   * that site would have taken rank 0's checkpoint early (a peer is ahead). */
  for (int peer = 1; peer <= 2; ++peer) MPI_Send(NULL, 0, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD);
  usleep(200000); /* ranks 1 and 2 checkpointed and the early sender sent */
  forced_checkpoint();
  MPI_Irecv(buffer_a, capacity, MPI_LONG, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &receive_a);
  MPI_Irecv(buffer_b, capacity, MPI_LONG, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &receive_b);
  if (program_tests_b) {
    for (int done = 0; !done;) {
      MPI_Test(&receive_b, &done, &status_b);
      if (!done) usleep(1000);
    }
    poll_for_ms(1000); /* the others' All-Initiated come in: rank 0 commits */
  } else {
    poll_for_ms(1300); /* c3 completes B and A's header here, then rank 0 commits */
    MPI_Wait(&receive_b, &status_b);
  }
  MPI_Wait(&receive_a, &status_a);
  int counts[2];
  MPI_Get_count(&status_a, MPI_LONG, &counts[0]);
  MPI_Get_count(&status_b, MPI_LONG, &counts[1]);
  long sums[2] = {sum_of(buffer_a, counts[0]), sum_of(buffer_b, counts[1])};
  int smaller = counts[0] <= counts[1] ? 0 : 1;
  for (int peer = 1; peer <= 2; ++peer)
    MPI_Recv(NULL, 0, MPI_INT, peer, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  site(); /* every rank committed this phase's checkpoint by now: C3_FAULT=site:2@0, site:4@0 */
  printf("%s: %d longs, sum %ld; %d longs, sum %ld\n", phase, counts[smaller], sums[smaller],
         counts[1 - smaller], sums[1 - smaller]);
}

/* Rank 1's or 2's side: checkpoint, send (300 ms late if asked), stay out of MPI for 600 ms. */
static void send_one(int rank, int tag, int count) {
  MPI_Recv(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  forced_checkpoint();
  if (late_rank() == rank) usleep(300000); /* read here: a restart resumes after the pragma */
  for (int i = 0; i < count; ++i) outgoing[i] = 100000L * rank + (long)tag * i;
  MPI_Request request;
  MPI_Isend(outgoing, count, MPI_LONG, 0, tag, MPI_COMM_WORLD, &request);
  usleep(600000); /* rank 0 completes B meanwhile, still in NonDet-Log */
  poll_for_ms(500); /* Checkpoint-Initiated read, All-Initiated sent, committed */
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Send(NULL, 0, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD); /* after this rank's commit */
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0) printf("wildcard_order needs 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) printf("wildcard_order: 3 ranks\n");
  /* Every pair talks once first: MPICH connects a pair when it first communicates, and a rank
   * would then read the other's control messages later than the phases expect. */
  for (int peer = 0; peer < size; ++peer) {
    int mine = rank, theirs = -1;
    if (peer != rank)
      MPI_Sendrecv(&mine, 1, MPI_INT, peer, TAG_WARMUP, &theirs, 1, MPI_INT, peer, TAG_WARMUP,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 0) {
    receive_two("split", TAG_SPLIT, SPLIT_LONGS, 0);
    receive_two("small", TAG_SMALL, SMALL_LONGS, 1);
  } else {
    send_one(rank, TAG_SPLIT, rank == 1 ? SPLIT_LONGS : FEW_LONGS);
    send_one(rank, TAG_SMALL, rank == 1 ? SMALL_LONGS : FEW_LONGS);
  }
  MPI_Finalize();
  return 0;
}
