/* mandel.c - estimates the area of the Mandelbrot set on a grid, row by row.
 *
 *   usage: mandel [rows] [max iterations]     (defaults: 1200 500)
 *
 * A checkpoint may be taken after every row (when C3_INTERVAL says one is due).
 */
#include <stdio.h>
#include <stdlib.h>

struct row_result {
  long inside;
  long iterations;
};

static struct row_result scan_row(double y, int columns, int max_iter, unsigned char *escape) {
  struct row_result r = {0, 0};
  for (int i = 0; i < columns; i++) {
    double cx = -2.0 + 2.5 * (i + 0.5) / columns;
    double zx = 0.0, zy = 0.0;
    int n = 0;
    while (n < max_iter && zx * zx + zy * zy <= 4.0) {
      double t = zx * zx - zy * zy + cx;
      zy = 2.0 * zx * zy + y;
      zx = t;
      n++;
    }
    r.iterations += n;
    if (n == max_iter) r.inside++;
    escape[i] = (unsigned char)(n * 255 / max_iter);
  }
  return r;
}

int main(int argc, char **argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 1200;
  int max_iter = argc > 2 ? atoi(argv[2]) : 500;
  int columns = rows * 5 / 4;
  unsigned char *image = malloc((size_t)rows * columns);
  long inside = 0, iterations = 0;
  unsigned long checksum = 0;

  for (int row = 0; row < rows; row++) {
    double y = -1.25 + 2.5 * (row + 0.5) / rows;
    struct row_result r = scan_row(y, columns, max_iter, image + (size_t)row * columns);
    inside += r.inside;
    iterations += r.iterations;
    for (int i = 0; i < columns; i++) checksum = checksum * 131 + image[(size_t)row * columns + i];
    if ((row + 1) % (rows / 8) == 0)
      printf("rows %4d: %ld points inside, %ld iterations, checksum %016lx\n", row + 1, inside, iterations, checksum);
#pragma ccc_checkpoint
  }
  double cell = (2.5 / columns) * (2.5 / rows);
  printf("area estimate %.6f from %d x %d points\n", inside * cell, columns, rows);
  free(image);
  return 0;
}
