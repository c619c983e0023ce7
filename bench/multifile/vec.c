/* vec.c - minimum-image distances in the periodic box. */
#include <math.h>

#include "md.h"

static double wrap(double x, double box) { return x - box * nearbyint(x / box); }

double md_distance2(const double *a, const double *b, double box, double *d) {
  d[0] = wrap(a[0] - b[0], box);
  d[1] = wrap(a[1] - b[1], box);
  d[2] = wrap(a[2] - b[2], box);
  return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}
