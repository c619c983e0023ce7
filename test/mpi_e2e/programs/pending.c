/* pending.c - nonblocking requests that are still pending when a checkpoint is taken.
 *
 * Ranks form a ring. In every step a rank posts MPI_Irecv from its left neighbour and MPI_Isend
 * to its right one, may take its checkpoint, computes, and only then waits for both. Requests
 * that live longer, within each PERIOD of steps:
 *   phase 1     MPI_Irecv of a "mail" message from the right neighbour (tested every step)
 *   phase 2     MPI_Issend of a token to the right neighbour; MPI_Irecv with a tag no one sends
 *   phase 3..6  the staggered forced checkpoints (rank r at phase 3 + r)
 *   phase 5     the never-matched MPI_Irecv is cancelled (MPI_Cancel, MPI_Wait,
 *               MPI_Test_cancelled must say it was cancelled)
 *   phase 7     the right neighbour sends the mail; the token is received, then the MPI_Issend
 *               is waited for
 *   phase 0     the mail receive and send are waited for
 * So the token is a late message for its receiver whose synchronous send is pending across the
 * sender's checkpoint; the mail receive is pending across the receiver's checkpoint. A
 * MPI_Sendrecv with the neighbours ends every step (messages completed before the receiver's
 * checkpoint: early ones). Rank 0 prints one line per step with every rank's state, gathered by
 * point-to-point messages.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 32
#define PERIOD 8
#define WIDTH 6
#define MODULUS 2147483647L

enum { TAG_STEP = 21, TAG_MAIL = 22, TAG_TOKEN = 23, TAG_NEVER = 24, TAG_REPORT = 25,
       TAG_CHECK = 26 };

static long state[WIDTH];

static long fold(const long *values, int count) {
  long h = 17;
  for (int i = 0; i < count; ++i) h = (h * 131 + values[i]) % MODULUS;
  return h;
}

static void compute(int step, int rank) {
  for (int i = 0; i < WIDTH; ++i)
    state[i] = (state[i] * 48271 + state[(i + 1) % WIDTH] + step + rank) % MODULUS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (int i = 0; i < WIDTH; ++i) state[i] = 1000 * rank + i * i + 1;

  long *outbox = malloc(WIDTH * sizeof *outbox);
  long inbox[WIDTH];
  long mail_in = 0, mail_out = 0, token_in = 0, token_out = 0, never = 0;
  MPI_Request mail_recv = MPI_REQUEST_NULL, mail_send = MPI_REQUEST_NULL;
  MPI_Request token_send = MPI_REQUEST_NULL, never_recv = MPI_REQUEST_NULL;
  int mail_arrived = 0, cancelled_count = 0, cancel_attempts = 0;
  long mail_total = 0, token_total = 0;

  for (int step = 1; step <= STEPS; ++step) {
    int phase = step % PERIOD;
    if (phase == 1) {
      MPI_Irecv(&mail_in, 1, MPI_LONG, right, TAG_MAIL, MPI_COMM_WORLD, &mail_recv);
      mail_arrived = 0;
    }
    if (phase == 2) {
      token_out = fold(state, WIDTH) ^ step;
      MPI_Issend(&token_out, 1, MPI_LONG, right, TAG_TOKEN, MPI_COMM_WORLD, &token_send);
      MPI_Irecv(&never, 1, MPI_LONG, left, TAG_NEVER, MPI_COMM_WORLD, &never_recv);
    }

    for (int i = 0; i < WIDTH; ++i) outbox[i] = state[i] ^ (long)step << 8;
    MPI_Request step_recv, step_send;
    MPI_Irecv(inbox, WIDTH, MPI_LONG, left, TAG_STEP, MPI_COMM_WORLD, &step_recv);
    MPI_Isend(outbox, WIDTH, MPI_LONG, right, TAG_STEP, MPI_COMM_WORLD, &step_send);

    if (phase == 3 + rank) {
#pragma ccc_checkpoint force
    }

    compute(step, rank);
    MPI_Status status;
    MPI_Wait(&step_recv, &status);
    int count;
    MPI_Get_count(&status, MPI_LONG, &count);
    if (count != WIDTH || status.MPI_SOURCE != left || status.MPI_TAG != TAG_STEP) {
      printf("rank %d step %d: bad status (count %d source %d tag %d)\n", rank, step, count,
             status.MPI_SOURCE, status.MPI_TAG);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Wait(&step_send, MPI_STATUS_IGNORE);
    for (int i = 0; i < WIDTH; ++i) state[i] = (state[i] + inbox[(i + step) % WIDTH]) % MODULUS;

    if (mail_recv != MPI_REQUEST_NULL && !mail_arrived)
      MPI_Test(&mail_recv, &mail_arrived, MPI_STATUS_IGNORE);
    if (phase == 5 && never_recv != MPI_REQUEST_NULL) {
      MPI_Cancel(&never_recv);
      MPI_Wait(&never_recv, &status);
      int cancelled;
      MPI_Test_cancelled(&status, &cancelled);
      cancelled_count += cancelled;
      ++cancel_attempts;
    }
    if (phase == 7) {
      mail_out = fold(state, WIDTH) + step;
      MPI_Isend(&mail_out, 1, MPI_LONG, left, TAG_MAIL, MPI_COMM_WORLD, &mail_send);
      MPI_Recv(&token_in, 1, MPI_LONG, left, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Wait(&token_send, MPI_STATUS_IGNORE);
      token_total = (token_total + token_in) % MODULUS;
      state[0] = (state[0] + token_in) % MODULUS;
    }
    if (phase == 0) {
      MPI_Wait(&mail_recv, MPI_STATUS_IGNORE); /* completed or not by MPI_Test above */
      MPI_Wait(&mail_send, MPI_STATUS_IGNORE);
      mail_total = (mail_total + mail_in) % MODULUS;
      state[WIDTH - 1] = (state[WIDTH - 1] + mail_in) % MODULUS;
    }

    /* Completed right away, unlike the step's messages: what rank r sends here after its
     * checkpoint reaches rank r + 1 before that one's (an early message). */
    long check_out = fold(state, WIDTH), check_in;
    MPI_Sendrecv(&check_out, 1, MPI_LONG, right, TAG_CHECK, &check_in, 1, MPI_LONG, left,
                 TAG_CHECK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    state[1] = (state[1] + check_in) % MODULUS;

    long mine = fold(state, WIDTH);
    if (rank != 0) {
      MPI_Send(&mine, 1, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
    } else {
      printf("step %2d: %10ld", step, mine);
      for (int r = 1; r < size; ++r) {
        long theirs;
        MPI_Recv(&theirs, 1, MPI_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf(" %10ld", theirs);
      }
      printf("\n");
    }
  }

  long summary[3] = {mail_total, token_total, cancelled_count == cancel_attempts ? cancel_attempts : -1};
  if (rank != 0) {
    MPI_Send(summary, 3, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
  } else {
    for (int r = 0; r < size; ++r) {
      if (r != 0) MPI_Recv(summary, 3, MPI_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d: mail %ld, tokens %ld, cancelled receives %ld\n", r, summary[0], summary[1],
             summary[2]);
    }
  }
  free(outbox);
  MPI_Finalize();
  return 0;
}
