/* nopragma.c - an ordinary program without any checkpoint pragma: Gaussian elimination on a
 * few Hilbert-like matrices and a word wrapper. Built with c3cc it must behave exactly as
 * built with any other compiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double determinant(double *m, int n) {
  double det = 1.0;
  for (int col = 0; col < n; col++) {
    int pivot = col;
    for (int r = col + 1; r < n; r++)
      if ((m[r * n + col] < 0 ? -m[r * n + col] : m[r * n + col]) >
          (m[pivot * n + col] < 0 ? -m[pivot * n + col] : m[pivot * n + col]))
        pivot = r;
    if (m[pivot * n + col] == 0.0) return 0.0;
    if (pivot != col) {
      for (int k = 0; k < n; k++) {
        double t = m[col * n + k];
        m[col * n + k] = m[pivot * n + k];
        m[pivot * n + k] = t;
      }
      det = -det;
    }
    det *= m[col * n + col];
    for (int r = col + 1; r < n; r++) {
      double f = m[r * n + col] / m[col * n + col];
      for (int k = col; k < n; k++) m[r * n + k] -= f * m[col * n + k];
    }
  }
  return det;
}

static void wrap(const char *text, int width) {
  char *copy = strdup(text);
  int column = 0;
  for (char *w = strtok(copy, " "); w != NULL; w = strtok(NULL, " ")) {
    int len = (int)strlen(w);
    if (column > 0 && column + 1 + len > width) {
      putchar('\n');
      column = 0;
    }
    if (column > 0) {
      putchar(' ');
      column++;
    }
    fputs(w, stdout);
    column += len;
  }
  putchar('\n');
  free(copy);
}

int main(void) {
  for (int n = 2; n <= 7; n++) {
    double *m = malloc((size_t)n * n * sizeof *m);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) m[i * n + j] = 1.0 / (i + j + 1) + (i == j ? 0.5 : 0.0);
    printf("n=%d det=%.10e\n", n, determinant(m, n));
    free(m);
  }
  wrap("It is a truth universally acknowledged, that a single program in possession of a good "
       "checkpoint, must be in want of a restart. However little known the feelings or views of "
       "such a program may be on its first entering a cluster, this truth is so well fixed.",
       38);
  return 0;
}
