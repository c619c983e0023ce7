/* heat.c - heat diffusion on a square plate, solved by Jacobi iteration. A c3 sample.
 *
 * The plate's top edge is held at 100 degrees and the other edges at 0. Every step replaces
 * each interior point by the mean of its four neighbours. The program prints a checksum of the
 * grid every 50 steps and at the end, so two runs can be compared byte for byte.
 *
 *   usage: heat [grid size] [steps] [checkpoint period]     (defaults: 512 2000 200)
 *
 * Built with c3cc, the program takes a checkpoint every <checkpoint period> steps (the forced
 * pragma) and whenever C3_INTERVAL has elapsed (the plain pragma). Any C compiler also builds
 * it; the pragmas are then ignored.
 */
#include <stdio.h>
#include <stdlib.h>

enum { REPORT_EVERY = 50 };

static const double kHotEdge = 100.0;

static void fail(const char *message) {
  fprintf(stderr, "heat: %s\n", message);
  exit(2);
}

static int positive_arg(int argc, char **argv, int index, int fallback) {
  if (argc <= index) return fallback;
  char *end = NULL;
  long value = strtol(argv[index], &end, 10);
  if (*end != '\0' || value < 1 || value > 100000) fail("arguments must be positive integers");
  return (int)value;
}

/* Interior at 0, fixed boundary: top row hot, the rest cold. */
static void init_grid(double *grid, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) grid[(size_t)i * n + j] = i == 0 ? kHotEdge : 0.0;
}

/* One Jacobi sweep from `old` into `next` (boundaries are left alone). Returns the largest
 * change of any point. */
static double jacobi_step(const double *restrict old, double *restrict next, int n) {
  double largest_change = 0.0;
  for (int i = 1; i < n - 1; ++i) {
    const double *up = old + (size_t)(i - 1) * n;
    const double *row = old + (size_t)i * n;
    const double *down = old + (size_t)(i + 1) * n;
    double *out = next + (size_t)i * n;
    for (int j = 1; j < n - 1; ++j) {
      double value = 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1]);
      double change = value > row[j] ? value - row[j] : row[j] - value;
      if (change > largest_change) largest_change = change;
      out[j] = value;
    }
  }
  return largest_change;
}

/* Position-weighted sum, so a point moved to the wrong place changes the result. */
static double checksum(const double *grid, int n) {
  double sum = 0.0;
  for (size_t k = 0; k < (size_t)n * n; ++k) sum += grid[k] * (double)(k % 7 + 1);
  return sum;
}

int main(int argc, char **argv) {
  int n = positive_arg(argc, argv, 1, 512);
  int steps = positive_arg(argc, argv, 2, 2000);
  int checkpoint_period = positive_arg(argc, argv, 3, 200);
  if (n < 3) fail("the grid needs at least 3 points per side");

  double *grid = malloc((size_t)n * n * sizeof *grid);
  double *next = malloc((size_t)n * n * sizeof *next);
  if (grid == NULL || next == NULL) fail("out of memory");
  init_grid(grid, n);
  init_grid(next, n);

  printf("heat: %dx%d grid, %d steps\n", n, n, steps);
  for (int step = 1; step <= steps; ++step) {
    double change = jacobi_step(grid, next, n);
    double *swap = grid;
    grid = next;
    next = swap;

    if (step % REPORT_EVERY == 0)
      printf("step %5d  largest change %.6e  checksum %.12e\n", step, change, checksum(grid, n));
    if (step % checkpoint_period == 0) {
#pragma ccc_checkpoint force
    }
#pragma ccc_checkpoint
  }
  printf("final checksum %.12e\n", checksum(grid, n));

  free(grid);
  free(next);
  return 0;
}
