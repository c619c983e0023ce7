// Heat diffusion on a grid whose size comes from the command line: the driver declares the two
// grids as variable-length arrays, the time step takes them as VLA parameters, and every step
// builds a VLA of column sums inside the loop and an alloca'ed label. A residual log is written
// every step to a file (20 checkpoints, in the time loop and in the step function).
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>

static double relax(int ny, int nx, double u[ny][nx], double v[ny][nx]) {
  double change = 0;
  for (int i = 1; i < ny - 1; ++i)
    for (int j = 1; j < nx - 1; ++j) {
      v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
      double d = v[i][j] - u[i][j];
      change += d < 0 ? -d : d;
    }
  for (int i = 1; i < ny - 1; ++i)
    for (int j = 1; j < nx - 1; ++j) u[i][j] = v[i][j];
  return change;
}

static void report(FILE *log, int step, int ny, int nx, double u[ny][nx], double change) {
  double sums[nx];
  for (int j = 0; j < nx; ++j) {
    sums[j] = 0;
    for (int i = 0; i < ny; ++i) sums[j] += u[i][j];
  }
  fprintf(log, "step %d: change %.6f, middle column %.6f\n", step, change, sums[nx / 2]);
#pragma ccc_checkpoint force
}

int main(int argc, char **argv) {
  int ny = argc > 1 ? atoi(argv[1]) : 12;
  int nx = argc > 2 ? atoi(argv[2]) : 16;
  int steps = argc > 3 ? atoi(argv[3]) : 10;
  double u[ny][nx];
  double v[ny][nx];
  for (int i = 0; i < ny; ++i)
    for (int j = 0; j < nx; ++j) u[i][j] = v[i][j] = (i == 0 ? 100.0 : 0.0);
  FILE *log = fopen("residuals.txt", "w");
  if (!log) return 1;
  for (int step = 1; step <= steps; ++step) {
    char *label = alloca(24);
    snprintf(label, 24, "step %d of %d", step, steps);
    double row[nx];
    double change = relax(ny, nx, u, v);
    for (int j = 0; j < nx; ++j) row[j] = u[ny / 2][j];
    printf("%s: change %.4f, centre %.4f, %zu bytes of grid\n", label, change, row[nx / 2],
           sizeof u);
    report(log, step, ny, nx, u, change);
#pragma ccc_checkpoint force
  }
  fclose(log);
  printf("done\n");
  return 0;
}
