/* potential.c - the Lennard-Jones pair potential, epsilon = sigma = 1. */
#include "md.h"

double md_force_over_r(double r2) {
  const double inv2 = 1.0 / r2;
  const double inv6 = inv2 * inv2 * inv2;
  return 24.0 * inv6 * (2.0 * inv6 - 1.0) * inv2;
}

double md_energy(double r2) {
  const double inv2 = 1.0 / r2;
  const double inv6 = inv2 * inv2 * inv2;
  return 4.0 * inv6 * (inv6 - 1.0);
}
