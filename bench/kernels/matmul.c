/* matmul.c - dense matrix multiply C = A*B repeated, a c3 benchmark kernel.
 *
 *   usage: matmul [size] [repetitions] [checkpoint period]     (defaults: 400 6 1000000)
 *
 * The pragma sits in the outer (row) loop of the same function as the i-k-j triple loop, so the
 * loop counters, the row pointers and the scalar a[i][k] are locals of an instrumented function:
 * they live in its frame record. Unlike nbody.c, the inner loop only stores doubles through a
 * pointer, and reads doubles through others, so this shows how much of the loop the compiler
 * still keeps in registers. Checkpoint period counts rows over all repetitions.
 */
#include <stdio.h>
#include <stdlib.h>

static void fail(const char *message) {
  fprintf(stderr, "matmul: %s\n", message);
  exit(2);
}

static int positive_arg(int argc, char **argv, int index, int fallback) {
  if (argc <= index) return fallback;
  char *end = NULL;
  long value = strtol(argv[index], &end, 10);
  if (*end != '\0' || value < 1 || value > 100000000) fail("arguments must be positive integers");
  return (int)value;
}

static void fill(double *m, int n, int seed) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m[(size_t)i * n + j] = (double)((i * 31 + j * 17 + seed) % 97) / 97.0;
}

/* c = a*b, `repetitions` times, with a (potential) checkpoint after every row. */
static void multiply(const double *a, const double *b, double *c, int n, int repetitions,
                     int checkpoint_period) {
  long rows_done = 0;
  for (int rep = 0; rep < repetitions; ++rep) {
    for (int i = 0; i < n; ++i) {
      double *c_row = c + (size_t)i * n;
      for (int j = 0; j < n; ++j) c_row[j] = 0.0;
      for (int k = 0; k < n; ++k) {
        double a_ik = a[(size_t)i * n + k] + (double)rep;
        const double *b_row = b + (size_t)k * n;
        for (int j = 0; j < n; ++j) c_row[j] += a_ik * b_row[j];
      }
      ++rows_done;
      if (rows_done % checkpoint_period == 0) {
#pragma ccc_checkpoint force
      }
#pragma ccc_checkpoint
    }
  }
}

int main(int argc, char **argv) {
  int n = positive_arg(argc, argv, 1, 400);
  int repetitions = positive_arg(argc, argv, 2, 6);
  int checkpoint_period = positive_arg(argc, argv, 3, 1000000);
  double *a = malloc((size_t)n * n * sizeof *a);
  double *b = malloc((size_t)n * n * sizeof *b);
  double *c = malloc((size_t)n * n * sizeof *c);
  if (a == NULL || b == NULL || c == NULL) fail("out of memory");
  fill(a, n, 1);
  fill(b, n, 2);
  printf("matmul: %dx%d, %d repetitions\n", n, n, repetitions);
  multiply(a, b, c, n, repetitions, checkpoint_period);
  double sum = 0.0;
  for (size_t k = 0; k < (size_t)n * n; ++k) sum += c[k] * (double)(k % 5 + 1);
  printf("checksum %.12e\n", sum);
  free(a);
  free(b);
  free(c);
  return 0;
}
