/* lost_cancel.c - an MPI_Cancel of a receive that fails because its message has already matched.
 *
 * Regression test for b838d58: in NonDet-Log a failed cancel of a receive must be logged, like
 * a successful one, and fail again in the replay. Before, only successful cancels were logged:
 * the restart asked MPICH again, and if the message had not come yet the cancel succeeded, so
 * the receive that got its message in the logged run came back cancelled.
 *
 * 3 ranks, two checkpoints each. Checkpoint 1 (the scenario):
 *  - Rank 1 posts MPI_Irecv for A1 (pending across its checkpoint, reposted by a restart),
 *    checkpoints, posts MPI_Irecv for A2 and tells rank 0 it is ready.
 *  - Rank 0 (checkpointed first) waits for that, sleeps 300 ms, sends A1 and A2 to rank 1, then
 *    lets rank 2 go.
 *  - Rank 2 sends B to rank 1 and checkpoints only 300 ms later: B is a late message for rank 1
 *    (logged, and served from the log by a restart), and rank 1 is still in NonDet-Log (it
 *    lacks rank 2's Checkpoint-Initiated) while it
 *  - receives B, cancels both receives, waits for them and asks MPI_Test_cancelled. A1 and A2
 *    were sent before rank 2 was told to send B, and rank 1 spent the 300 ms in MPI_Recv (MPI
 *    progress): they matched long before B came, so both cancels fail.
 * A second checkpoint (during a ring exchange, rank 0 first) gets checkpoint 1 committed, so
 * C3_FAULT=after-commit:1@r kills the run with rank 1's log holding the two failed cancels.
 * In the restart rank 1 gets B from its log at once and reaches the cancels while rank 0 still
 * sleeps before resending A1 and A2: a cancel asked of MPICH would succeed. Rank 0 prints what
 * rank 1 got.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define STEPS 10

enum { TAG_READY = 31, TAG_A1 = 32, TAG_A2 = 33, TAG_GO = 34, TAG_B = 35, TAG_RING = 36,
       TAG_REPORT = 37 };

static void forced_checkpoint(void) {
#pragma ccc_checkpoint force
}

static void site(void) {
#pragma ccc_checkpoint
}

/* What rank 1 saw of one receive it tried to cancel: [cancelled, value, source, tag]. The value
 * is read only after MPI_Wait (until then the buffer belongs to MPI). */
static void outcome(MPI_Request *request, const long *value, long *seen) {
  MPI_Status status;
  int cancelled;
  MPI_Wait(request, &status);
  MPI_Test_cancelled(&status, &cancelled);
  seen[0] = cancelled;
  seen[1] = cancelled ? -1 : *value;
  seen[2] = cancelled ? -1 : status.MPI_SOURCE;
  seen[3] = cancelled ? -1 : status.MPI_TAG;
}

static void print_outcome(const char *name, const long *seen) {
  if (seen[0])
    printf("rank 1: the receive of %s was cancelled\n", name);
  else
    printf("rank 1: the cancel of %s failed: got %ld from rank %ld, tag %ld\n", name, seen[1],
           seen[2], seen[3]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0) printf("lost_cancel needs 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) printf("lost_cancel: 3 ranks\n");

  long seen[8] = {0}; /* rank 1: the outcomes for A1 and A2 */
  long b = 0;
  if (rank == 0) {
    forced_checkpoint();
    MPI_Recv(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    usleep(300000);
    long a1 = 1111, a2 = 2222;
    MPI_Send(&a1, 1, MPI_LONG, 1, TAG_A1, MPI_COMM_WORLD);
    MPI_Send(&a2, 1, MPI_LONG, 1, TAG_A2, MPI_COMM_WORLD);
    MPI_Send(NULL, 0, MPI_INT, 2, TAG_GO, MPI_COMM_WORLD);
  } else if (rank == 1) {
    long a1 = 0, a2 = 0;
    MPI_Request recv_a1, recv_a2;
    MPI_Irecv(&a1, 1, MPI_LONG, 0, TAG_A1, MPI_COMM_WORLD, &recv_a1);
    forced_checkpoint();
    MPI_Irecv(&a2, 1, MPI_LONG, 0, TAG_A2, MPI_COMM_WORLD, &recv_a2);
    MPI_Send(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
    MPI_Recv(&b, 1, MPI_LONG, 2, TAG_B, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Cancel(&recv_a1);
    MPI_Cancel(&recv_a2);
    outcome(&recv_a1, &a1, seen);
    outcome(&recv_a2, &a2, seen + 4);
  } else {
    MPI_Recv(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    b = 3333;
    MPI_Send(&b, 1, MPI_LONG, 1, TAG_B, MPI_COMM_WORLD);
    usleep(300000); /* rank 1 cancels while it still logs */
    forced_checkpoint();
  }

  /* Checkpoint 2, in a ring exchange: rank 0 forces it in step 3 (or, still busy with
   * checkpoint 1 there, at a later step's site); the others take it at the first site after
   * they learn of it. One forced pragma only: each one asks for a checkpoint of its own. */
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  long token = 100 * rank + b % 97;
  for (int step = 1; step <= STEPS; ++step) {
    if (rank == 0 && step == 3) forced_checkpoint();
    site();
    long in;
    MPI_Sendrecv(&token, 1, MPI_LONG, right, TAG_RING, &in, 1, MPI_LONG, left, TAG_RING,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token = (token * 7 + in + step) % 1000003;
  }

  if (rank == 1) MPI_Send(seen, 8, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
  if (rank != 0) {
    MPI_Send(&token, 1, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
  } else {
    MPI_Recv(seen, 8, MPI_LONG, 1, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    print_outcome("A1", seen);
    print_outcome("A2", seen + 4);
    printf("ring tokens: %ld", token);
    for (int r = 1; r < size; ++r) {
      long theirs;
      MPI_Recv(&theirs, 1, MPI_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf(" %ld", theirs);
    }
    printf("\n");
  }
  MPI_Finalize();
  return 0;
}
