/* heat_mpi.c - heat diffusion on a square plate, solved by Jacobi iteration over MPI ranks.
 * A c3 sample.
 *
 * The plate's top edge is held at 100 degrees, its left edge at 50 and the other edges at 0.
 * The interior rows are split into horizontal strips, one per rank; each rank keeps a ghost row
 * above and below its strip and refreshes them every step from its neighbours with
 * MPI_Irecv/MPI_Isend/MPI_Waitall. Every REPORT_EVERY steps each rank sends its largest change
 * and a checksum of its strip to rank 0 (point-to-point, in rank order), rank 0 prints one line
 * and tells every rank whether the plate has converged (largest change below the tolerance).
 * Only rank 0 prints, so two runs with the same number of ranks can be compared byte for byte.
 *
 *   usage: mpiexec -n N heat_mpi [grid size] [steps] [checkpoint period] [tolerance]
 *          (defaults: 512 1000 100 1e-4)
 *
 * Built with c3cc, rank r reaches a forced checkpoint at every step s with
 * s % period == period / 4 + r, one step after rank r - 1. The ranks thus take their parts of
 * one checkpoint at different steps while the halos keep flowing: the halo rank r + 1 sends
 * before its checkpoint reaches rank r after rank r's checkpoint (a late message), and the one
 * rank r sends back after its checkpoint arrives before rank r + 1's (an early message). The
 * plain pragma checkpoints whenever C3_INTERVAL has elapsed. Plain mpicc also builds the
 * program; the pragmas are then ignored.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { REPORT_EVERY = 50 };
enum { TAG_DOWNWARD = 1, TAG_UPWARD = 2, TAG_REPORT = 3, TAG_VERDICT = 4 };

static const double kTopEdge = 100.0;
static const double kLeftEdge = 50.0;

static int rank, nranks;

/* Every rank parses the same arguments, so every rank reaches the same verdict; rank 0 says
 * why. */
static int arguments_ok = 1;

static void complain(const char *message) {
  if (rank == 0) fprintf(stderr, "heat_mpi: %s\n", message);
  arguments_ok = 0;
}

static long number_arg(int argc, char **argv, int index, long fallback, long low, long high) {
  if (argc <= index) return fallback;
  char *end = NULL;
  long value = strtol(argv[index], &end, 10);
  if (*end != '\0' || value < low || value > high) {
    complain("grid size, steps and checkpoint period must be positive integers (grid size >= 3)");
    return fallback;
  }
  return value;
}

static double tolerance_arg(int argc, char **argv, int index, double fallback) {
  if (argc <= index) return fallback;
  char *end = NULL;
  double value = strtod(argv[index], &end);
  if (*end != '\0' || !(value >= 0.0)) {
    complain("the tolerance must be a number >= 0");
    return fallback;
  }
  return value;
}

/* This rank's strip of the plate: interior rows [first_row, first_row + rows) of an n x n grid,
 * stored with one ghost row above and one below, rows + 2 rows of n values. */
struct strip {
  int n;
  int first_row;
  int rows;
};

static struct strip make_strip(int n) {
  int interior = n - 2;
  int base = interior / nranks, extra = interior % nranks;
  struct strip s;
  s.n = n;
  s.rows = base + (rank < extra ? 1 : 0);
  s.first_row = 1 + rank * base + (rank < extra ? rank : extra);
  return s;
}

/* Boundary values where the strip touches the plate's edges, 0 inside. Local row 0 is global
 * row first_row - 1. */
static void init_strip(double *cells, const struct strip *s) {
  for (int i = 0; i < s->rows + 2; ++i) {
    int global_row = s->first_row - 1 + i;
    for (int j = 0; j < s->n; ++j) {
      double value = 0.0;
      if (global_row == 0)
        value = kTopEdge;
      else if (j == 0 && global_row != s->n - 1)
        value = kLeftEdge;
      cells[(size_t)i * s->n + j] = value;
    }
  }
}

/* Refreshes the ghost rows from the neighbouring strips. The plate's top and bottom edges are
 * fixed, so the first and last strips have no neighbour there. */
static void exchange_halos(double *cells, const struct strip *s) {
  MPI_Request requests[4];
  MPI_Status statuses[4];
  int count = 0;
  size_t n = (size_t)s->n;
  double *ghost_above = cells, *first_own = cells + n;
  double *last_own = cells + (size_t)s->rows * n, *ghost_below = cells + (size_t)(s->rows + 1) * n;
  if (rank > 0) {
    MPI_Irecv(ghost_above, s->n, MPI_DOUBLE, rank - 1, TAG_DOWNWARD, MPI_COMM_WORLD,
              &requests[count++]);
    MPI_Isend(first_own, s->n, MPI_DOUBLE, rank - 1, TAG_UPWARD, MPI_COMM_WORLD,
              &requests[count++]);
  }
  if (rank < nranks - 1) {
    MPI_Irecv(ghost_below, s->n, MPI_DOUBLE, rank + 1, TAG_UPWARD, MPI_COMM_WORLD,
              &requests[count++]);
    MPI_Isend(last_own, s->n, MPI_DOUBLE, rank + 1, TAG_DOWNWARD, MPI_COMM_WORLD,
              &requests[count++]);
  }
  MPI_Waitall(count, requests, statuses);
}

/* One Jacobi sweep of the strip's own rows from `old` into `next`; the plate's left and right
 * columns stay fixed. Returns the largest change of any point. */
static double jacobi_step(const double *restrict old, double *restrict next,
                          const struct strip *s) {
  size_t n = (size_t)s->n;
  double largest_change = 0.0;
  for (int i = 1; i <= s->rows; ++i) {
    const double *up = old + (size_t)(i - 1) * n;
    const double *row = old + (size_t)i * n;
    const double *down = old + (size_t)(i + 1) * n;
    double *out = next + (size_t)i * n;
    for (size_t j = 1; j + 1 < n; ++j) {
      double value = 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1]);
      double change = value > row[j] ? value - row[j] : row[j] - value;
      if (change > largest_change) largest_change = change;
      out[j] = value;
    }
  }
  return largest_change;
}

/* Position-weighted sum of the strip's own rows, so a row moved to the wrong place or rank
 * changes the result. */
static double strip_checksum(const double *cells, const struct strip *s) {
  size_t n = (size_t)s->n;
  double sum = 0.0;
  for (int i = 1; i <= s->rows; ++i) {
    size_t global_row = (size_t)(s->first_row - 1 + i);
    for (size_t j = 0; j < n; ++j) sum += cells[i * n + j] * (double)((global_row * n + j) % 7 + 1);
  }
  return sum;
}

/* Rank 0 collects every rank's (largest change, checksum) in rank order: the plate's largest
 * change and the checksum of all interior rows. Other ranks learn nothing back. */
static void gather_report(double largest_change, double checksum, double *plate_change,
                          double *plate_checksum) {
  double mine[2] = {largest_change, checksum};
  if (rank != 0) {
    MPI_Send(mine, 2, MPI_DOUBLE, 0, TAG_REPORT, MPI_COMM_WORLD);
    return;
  }
  *plate_change = largest_change;
  *plate_checksum = checksum;
  for (int r = 1; r < nranks; ++r) {
    double theirs[2];
    MPI_Recv(theirs, 2, MPI_DOUBLE, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (theirs[0] > *plate_change) *plate_change = theirs[0];
    *plate_checksum += theirs[1];
  }
}

/* Rank 0 decides whether to go on and tells everyone. */
static int share_verdict(int converged) {
  if (rank == 0) {
    for (int r = 1; r < nranks; ++r)
      MPI_Send(&converged, 1, MPI_INT, r, TAG_VERDICT, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&converged, 1, MPI_INT, 0, TAG_VERDICT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return converged;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  int n = (int)number_arg(argc, argv, 1, 512, 3, 100000);
  int steps = (int)number_arg(argc, argv, 2, 1000, 1, 100000000);
  int checkpoint_period = (int)number_arg(argc, argv, 3, 100, 1, 100000000);
  double tolerance = tolerance_arg(argc, argv, 4, 1e-4);
  if (arguments_ok && n - 2 < nranks) complain("the grid needs at least one interior row per rank");
  if (!arguments_ok) {
    MPI_Finalize();
    return 2;
  }

  struct strip s = make_strip(n);
  size_t cells_per_strip = (size_t)(s.rows + 2) * (size_t)n;
  double *grid = malloc(cells_per_strip * sizeof *grid);
  double *next = malloc(cells_per_strip * sizeof *next);
  if (grid == NULL || next == NULL) {
    fprintf(stderr, "heat_mpi: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  init_strip(grid, &s);
  init_strip(next, &s);
  int stagger = (checkpoint_period / 4 + rank) % checkpoint_period;

  if (rank == 0)
    printf("heat_mpi: %dx%d plate in %d strips, up to %d steps, tolerance %.1e\n", n, n, nranks,
           steps, tolerance);
  int step = 0, converged = 0;
  double change = 0.0, plate_change = 0.0, plate_checksum = 0.0;
  while (step < steps && !converged) {
    ++step;
    exchange_halos(grid, &s);
    change = jacobi_step(grid, next, &s);
    double *swap = grid;
    grid = next;
    next = swap;

    if (step % REPORT_EVERY == 0) {
      gather_report(change, strip_checksum(grid, &s), &plate_change, &plate_checksum);
      if (rank == 0)
        printf("step %6d  largest change %.6e  checksum %.12e\n", step, plate_change,
               plate_checksum);
      converged = share_verdict(rank == 0 && plate_change < tolerance);
    }
    if (step % checkpoint_period == stagger) {
#pragma ccc_checkpoint force
    }
#pragma ccc_checkpoint
  }

  gather_report(change, strip_checksum(grid, &s), &plate_change, &plate_checksum);
  if (rank == 0)
    printf("%s after %d steps: largest change %.6e, final checksum %.12e\n",
           converged ? "converged" : "stopped", step, plate_change, plate_checksum);

  free(grid);
  free(next);
  MPI_Finalize();
  return 0;
}
