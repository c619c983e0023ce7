/* nested.c - the forced checkpoints sit deep in a call chain, not in main.
 *
 * main's loop calls advance() inside an expression; advance() posts the step's MPI_Irecv and
 * MPI_Isend (the requests are its local variables), then calls one of two phase functions
 * through a function pointer; they call settle(), which recurses to a depth that varies by step
 * and holds the staggered forced checkpoint at the bottom. Every frame keeps values it uses
 * after the call returns, and advance() waits for its requests only after the whole chain has
 * returned. A restart must rebuild the chain (main, advance, phase, settle x depth) and the
 * pending requests. After advance() returns, neighbours exchange their totals with
 * MPI_Sendrecv (so early messages occur too).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 26
#define PERIOD 8
#define FIELD 12
#define MODULUS 1000003L

enum { TAG_EDGE = 61, TAG_REPORT = 62, TAG_CHECK = 63 };

static long settle(int depth, int step, int rank, long acc) {
  long local = (acc * 3 + depth) % MODULUS;
  if (depth == 0) {
    if (step % PERIOD == 3 + rank) {
#pragma ccc_checkpoint force
    }
    return local;
  }
  long below = settle(depth - 1, step, rank, local % 10007);
  return (below * 7 + local) % MODULUS;
}

static long phase_even(long *field, int step, int rank) {
  long before = field[0];
  long settled = settle(2 + step % 3, step, rank, before);
  field[0] = (before + settled) % MODULUS;
  return settled;
}

static long phase_odd(long *field, int step, int rank) {
  long before = field[FIELD - 1];
  long settled = settle(1 + step % 4, step, rank, before * 5);
  field[FIELD - 1] = (before * 2 + settled) % MODULUS;
  return settled + 1;
}

static long (*const phases[2])(long *, int, int) = {phase_even, phase_odd};

static long advance(long *field, int step, int rank, int left, int right) {
  long incoming = -1, outgoing = field[step % FIELD];
  MPI_Request requests[2];
  MPI_Irecv(&incoming, 1, MPI_LONG, left, TAG_EDGE, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(&outgoing, 1, MPI_LONG, right, TAG_EDGE, MPI_COMM_WORLD, &requests[1]);
  long settled = phases[step % 2](field, step, rank);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  for (int i = 0; i < FIELD; ++i) field[i] = (field[i] * 31 + incoming + i + settled) % MODULUS;
  return (incoming + settled) % 1000;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  long *field = malloc(FIELD * sizeof *field);
  for (int i = 0; i < FIELD; ++i) field[i] = rank * 100 + i;
  long total = 0;

  for (int step = 1; step <= STEPS; ++step) {
    total = (total * 3 + advance(field, step, rank, left, right)) % MODULUS;
    /* Completed right away, unlike advance()'s requests: what rank r sends here after its
     * checkpoint reaches rank r + 1 before that one's (an early message). */
    long neighbour;
    MPI_Sendrecv(&total, 1, MPI_LONG, right, TAG_CHECK, &neighbour, 1, MPI_LONG, left, TAG_CHECK,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    field[step % FIELD] = (field[step % FIELD] + neighbour) % MODULUS;
    if (rank != 0) {
      MPI_Send(&total, 1, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
    } else {
      printf("step %2d: %7ld", step, total);
      for (int r = 1; r < size; ++r) {
        long theirs;
        MPI_Recv(&theirs, 1, MPI_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf(" %7ld", theirs);
      }
      printf("\n");
    }
  }
  free(field);
  MPI_Finalize();
  return 0;
}
