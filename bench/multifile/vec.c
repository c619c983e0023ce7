/* vec.c - array helpers. */
#include <math.h>

#include "md.h"

void md_zero(double *v, int n) {
  for (int k = 0; k < n; ++k) v[k] = 0.0;
}

void md_wrap(double *v, int n, double box) {
  for (int k = 0; k < n; ++k) v[k] -= box * floor(v[k] / box);
}
