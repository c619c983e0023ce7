/* pipeline.c - a pipeline of ranks with credits flowing back, exactly two checkpoints per rank.
 *
 * Every step rank 0 feeds an item into the pipeline; each rank transforms it and passes it on
 * with MPI_Send, the last rank returns the result to rank 0, which prints it. Each receiver gives
 * its sender a credit back, so messages go both ways between every pair of neighbours. All
 * calls are blocking; the order of sends and receives is safe even for synchronous sends.
 *
 * Every rank takes two forced checkpoints, at steps 3 + rank and 12 + rank, so the test can run
 * it with C3_KEEP=1: checkpoint 1 may only go once checkpoint 2 is committed by every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 22
#define SECOND 12 /* rank r checkpoints at steps 3 + r and SECOND + r */
#define ITEM 4

enum { TAG_ITEM = 51, TAG_CREDIT = 52, TAG_RESULT = 53 };

struct stage {
  long seen;      /* items passed through this rank */
  long credits;   /* credits received from the next rank */
  long carry;     /* data-dependent state mixed into every item */
};

static struct stage *stage;

static void transform(long *item, int rank) {
  for (int i = 0; i < ITEM; ++i) {
    item[i] = (item[i] * (rank + 3) + stage->carry + i) % 999983;
    stage->carry = (stage->carry + item[i]) % 7919;
  }
  stage->seen += 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    printf("pipeline needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int last = size - 1;
  stage = calloc(1, sizeof *stage);
  stage->carry = rank + 1;

  for (int step = 1; step <= STEPS; ++step) {
    if (step == 3 + rank || step == SECOND + rank) {
#pragma ccc_checkpoint force
    }
    long item[ITEM], credit = step;
    if (rank == 0) {
      for (int i = 0; i < ITEM; ++i) item[i] = step * 100 + i;
      transform(item, rank);
      MPI_Send(item, ITEM, MPI_LONG, 1, TAG_ITEM, MPI_COMM_WORLD);
      MPI_Recv(&credit, 1, MPI_LONG, 1, TAG_CREDIT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      stage->credits += credit;
      MPI_Recv(item, ITEM, MPI_LONG, last, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("step %2d: %6ld %6ld %6ld %6ld\n", step, item[0], item[1], item[2], item[3]);
    } else {
      MPI_Recv(item, ITEM, MPI_LONG, rank - 1, TAG_ITEM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      credit = step * 10 + rank;
      MPI_Send(&credit, 1, MPI_LONG, rank - 1, TAG_CREDIT, MPI_COMM_WORLD);
      transform(item, rank);
      if (rank == last) {
        MPI_Send(item, ITEM, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
      } else {
        MPI_Send(item, ITEM, MPI_LONG, rank + 1, TAG_ITEM, MPI_COMM_WORLD);
        MPI_Recv(&credit, 1, MPI_LONG, rank + 1, TAG_CREDIT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        stage->credits += credit;
      }
    }
  }

  long mine[3] = {stage->seen, stage->credits, stage->carry};
  if (rank != 0) {
    MPI_Send(mine, 3, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
  } else {
    for (int r = 0; r < size; ++r) {
      if (r != 0) MPI_Recv(mine, 3, MPI_LONG, r, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d: %ld items, credits %ld, carry %ld\n", r, mine[0], mine[1], mine[2]);
    }
  }
  free(stage);
  MPI_Finalize();
  return 0;
}
