/* halo.c - a 1-D cellular automaton split over a ring of ranks.
 *
 * Every step each rank exchanges halos with both neighbours (MPI_Irecv/MPI_Isend/MPI_Waitall).
 * How many cells a rank sends depends on its data, so the receiver reads the count from the
 * status (MPI_Get_count). Then each rank reports a checksum to rank 0 (MPI_Send/MPI_Recv in rank
 * order), which prints one line per step.
 *
 * Forced checkpoints are staggered: rank r takes one at every step s with s % PERIOD == 3 + r.
 * Rank r therefore checkpoints one step before rank r + 1, so the halo rank r + 1 sends in that
 * step is a late message for rank r and the halo rank r sends back is an early message for
 * rank r + 1 - in both directions across every recovery line.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 48
#define HALO 4     /* at most this many cells travel to each neighbour per step */
#define STEPS 34
#define PERIOD 8   /* ranks 0..4: checkpoints at steps 3..7 (mod 8) */
#define MODULUS 1000003L

enum { TAG_LEFTWARD = 11, TAG_RIGHTWARD = 12, TAG_REPORT = 13 };

/* cells[HALO .. HALO + CELLS) are this rank's own */
static long *cells;
static long history; /* data-dependent state carried from step to step */

static long weigh(const long *values, int count) {
  long sum = 0;
  for (int i = 0; i < count; ++i) sum = (sum + values[i] * (i + 1)) % MODULUS;
  return sum;
}

static void update(long ghost_left, long ghost_right, int step, int rank) {
  long before = ghost_left;
  for (int i = HALO; i < HALO + CELLS; ++i) {
    long after = i + 1 < HALO + CELLS ? cells[i + 1] : ghost_right;
    long current = cells[i];
    cells[i] = (3 * before + 5 * current + 7 * after + step * (rank + 1) + history) % MODULUS;
    before = current;
  }
  history = (history * 31 + cells[HALO + step % CELLS]) % MODULUS;
}

static unsigned long checksum(void) {
  unsigned long sum = 0;
  for (int i = HALO; i < HALO + CELLS; ++i) sum = sum * 1099511628211UL + (unsigned long)cells[i];
  return sum ^ (unsigned long)history;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;

  cells = malloc((CELLS + 2 * HALO) * sizeof *cells);
  for (int i = 0; i < CELLS + 2 * HALO; ++i) cells[i] = ((long)rank * CELLS + i) * 7919 % 1009;
  history = rank;
  unsigned long *reports = malloc(size * sizeof *reports);
  long from_left[HALO], from_right[HALO];
  long cells_moved = 0;

  for (int step = 1; step <= STEPS; ++step) {
    if (step % PERIOD == 3 + rank) {
#pragma ccc_checkpoint force
    }
    int to_left = 1 + (int)(cells[HALO] % HALO);
    int to_right = 1 + (int)(cells[HALO + CELLS - 1] % HALO);
    MPI_Request requests[4];
    MPI_Status statuses[4];
    MPI_Irecv(from_left, HALO, MPI_LONG, left, TAG_RIGHTWARD, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(from_right, HALO, MPI_LONG, right, TAG_LEFTWARD, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(&cells[HALO], to_left, MPI_LONG, left, TAG_LEFTWARD, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(&cells[HALO + CELLS - to_right], to_right, MPI_LONG, right, TAG_RIGHTWARD,
              MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests, statuses);
    int got_left, got_right;
    MPI_Get_count(&statuses[0], MPI_LONG, &got_left);
    MPI_Get_count(&statuses[1], MPI_LONG, &got_right);
    if (statuses[0].MPI_SOURCE != left || statuses[1].MPI_TAG != TAG_LEFTWARD || got_left < 1 ||
        got_left > HALO || got_right < 1 || got_right > HALO) {
      printf("rank %d step %d: bad status (source %d tag %d counts %d %d)\n", rank, step,
             statuses[0].MPI_SOURCE, statuses[1].MPI_TAG, got_left, got_right);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    cells_moved += got_left + got_right;
    update(weigh(from_left, got_left), weigh(from_right, got_right), step, rank);

    unsigned long mine = checksum();
    if (rank != 0) {
      MPI_Send(&mine, 1, MPI_UNSIGNED_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
    } else {
      reports[0] = mine;
      for (int r = 1; r < size; ++r)
        MPI_Recv(&reports[r], 1, MPI_UNSIGNED_LONG, r, TAG_REPORT, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      printf("step %2d:", step);
      for (int r = 0; r < size; ++r) printf(" %016lx", reports[r]);
      printf("\n");
    }
  }

  long total_moved = cells_moved;
  if (rank != 0) {
    MPI_Send(&cells_moved, 1, MPI_LONG, 0, TAG_REPORT, MPI_COMM_WORLD);
  } else {
    for (int r = 1; r < size; ++r) {
      long theirs;
      MPI_Recv(&theirs, 1, MPI_LONG, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      total_moved += theirs;
    }
    printf("%d ranks, %d steps, %ld cells moved\n", size, STEPS, total_moved);
  }
  free(reports);
  free(cells);
  MPI_Finalize();
  return 0;
}
