/* completions.c - completion calls whose outcome depends on timing.
 *
 * Every step each rank sends to and receives from every other rank. The receives complete
 * through an MPI_Waitany loop (odd steps) or an MPI_Testsome loop (even steps), the sends through
 * an MPI_Testany loop. Then a receive posted for a message from the left neighbour is cancelled:
 * whether MPI_Cancel wins depends on timing too; if it does, the message is received with
 * MPI_Recv instead.
 *
 * A rank folds every such outcome (the order of completions, the number of unsuccessful tests,
 * whether the cancel won) into an "order hash" and puts that hash into the messages it sends.
 * Order hashes differ from run to run, so they are never printed. Instead every rank keeps what it
 * sent to and what it received from each peer, and rank 0 checks at the end that the two sides
 * agree. A restart that replayed an outcome differently from the run its peers saw (before their
 * own checkpoints) breaks the agreement. The printed values are sums that do not depend on order.
 *
 * Forced checkpoints are staggered by rank (step % PERIOD == 3 + rank).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 26
#define PERIOD 8
#define MAX_RANKS 8
#define MODULUS 1000000007L

enum { TAG_DATA = 31, TAG_EXTRA = 32, TAG_REPORT = 33 };

static unsigned long order_hash;
static unsigned long sent_mix[MAX_RANKS], received_mix[MAX_RANKS];

static void note(unsigned long outcome) { order_hash = (order_hash ^ outcome) * 1099511628211UL; }

static unsigned long rotate(unsigned long x, int by) { return x << by | x >> (64 - by); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > MAX_RANKS) {
    printf("completions needs 2 to %d ranks\n", MAX_RANKS);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int peers = size - 1;
  long value = 1000 + rank * 77;
  long (*inbox)[2] = malloc(peers * sizeof *inbox);
  long outbox[2], extra_in, extra_out;
  MPI_Request *receives = malloc(peers * sizeof *receives);
  MPI_Request *sends = malloc(peers * sizeof *sends);
  int *indices = malloc(peers * sizeof *indices);
  MPI_Status *statuses = malloc(peers * sizeof *statuses);
  order_hash = 14695981039346656037UL + rank;
  int cancels_won = 0;

  for (int step = 1; step <= STEPS; ++step) {
    if (step % PERIOD == 3 + rank) {
#pragma ccc_checkpoint force
    }
    outbox[0] = value;
    outbox[1] = (long)order_hash;
    for (int p = 0; p < peers; ++p) {
      int peer = (rank + 1 + p) % size;
      MPI_Irecv(inbox[p], 2, MPI_LONG, peer, TAG_DATA, MPI_COMM_WORLD, &receives[p]);
      MPI_Isend(outbox, 2, MPI_LONG, peer, TAG_DATA, MPI_COMM_WORLD, &sends[p]);
      sent_mix[peer] ^= rotate(order_hash, step);
    }
    MPI_Request extra_send;
    extra_out = value * 3 + step;
    MPI_Isend(&extra_out, 1, MPI_LONG, right, TAG_EXTRA, MPI_COMM_WORLD, &extra_send);
    MPI_Request extra_recv;
    MPI_Irecv(&extra_in, 1, MPI_LONG, left, TAG_EXTRA, MPI_COMM_WORLD, &extra_recv);

    long sum = 0;
    if (step % 2 == 1) {
      for (int done = 0; done < peers; ++done) {
        int index;
        MPI_Status status;
        MPI_Waitany(peers, receives, &index, &status);
        if (index == MPI_UNDEFINED || status.MPI_SOURCE != (rank + 1 + index) % size) {
          printf("rank %d step %d: MPI_Waitany gave index %d source %d\n", rank, step, index,
                 status.MPI_SOURCE);
          MPI_Abort(MPI_COMM_WORLD, 3);
        }
        note((unsigned long)index + 1);
      }
    } else {
      for (;;) {
        int completed;
        MPI_Testsome(peers, receives, &completed, indices, statuses);
        if (completed == MPI_UNDEFINED) break;
        note(completed == 0 ? 0x100 : 0x200);
        for (int i = 0; i < completed; ++i) note((unsigned long)indices[i] + 1);
      }
    }
    for (int p = 0; p < peers; ++p) {
      int peer = (rank + 1 + p) % size;
      sum = (sum + inbox[p][0] * (peer + 1)) % MODULUS;
      received_mix[peer] ^= rotate((unsigned long)inbox[p][1], step);
    }
    for (;;) {
      int index, flag;
      MPI_Testany(peers, sends, &index, &flag, MPI_STATUS_IGNORE);
      if (flag && index == MPI_UNDEFINED) break;
      note(flag ? 0x300 + (unsigned long)index : 0x400);
    }

    MPI_Cancel(&extra_recv);
    MPI_Status status;
    MPI_Wait(&extra_recv, &status);
    int cancelled;
    MPI_Test_cancelled(&status, &cancelled);
    if (cancelled) {
      ++cancels_won;
      MPI_Recv(&extra_in, 1, MPI_LONG, left, TAG_EXTRA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    note(cancelled ? 0x500 : 0x600);
    MPI_Wait(&extra_send, MPI_STATUS_IGNORE);

    value = (value * 7 + sum + extra_in) % MODULUS;
    if (rank != 0) {
      MPI_Send(&value, 1, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
    } else {
      printf("step %2d: %9ld", step, value);
      for (int r = 1; r < size; ++r) {
        long theirs;
        MPI_Recv(&theirs, 1, MPI_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf(" %9ld", theirs);
      }
      printf("\n");
    }
  }

  /* Rank 0 compares what each rank sent to each peer with what that peer received. */
  if (rank != 0) {
    MPI_Send(sent_mix, size, MPI_UNSIGNED_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
    MPI_Send(received_mix, size, MPI_UNSIGNED_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
  } else {
    unsigned long sent[MAX_RANKS][MAX_RANKS], received[MAX_RANKS][MAX_RANKS];
    for (int q = 0; q < size; ++q) {
      sent[0][q] = sent_mix[q];
      received[0][q] = received_mix[q];
    }
    for (int r = 1; r < size; ++r) {
      MPI_Recv(sent[r], size, MPI_UNSIGNED_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(received[r], size, MPI_UNSIGNED_LONG, r, TAG_REPORT, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    int agree = 1;
    for (int r = 0; r < size; ++r)
      for (int q = 0; q < size; ++q)
        if (r != q && sent[r][q] != received[q][r]) {
          printf("rank %d received from rank %d other order hashes than were sent\n", q, r);
          agree = 0;
        }
    printf("%d ranks, %d steps: order hashes agree: %s\n", size, STEPS, agree ? "yes" : "NO");
  }
#ifdef SHOW_TIMING_DEPENDENT
  fprintf(stderr, "rank %d: order hash %016lx, %d cancels won\n", rank, order_hash, cancels_won);
#endif
  free(statuses);
  free(indices);
  free(sends);
  free(receives);
  free(inbox);
  MPI_Finalize();
  return 0;
}
