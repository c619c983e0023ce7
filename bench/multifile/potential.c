/* potential.c - the Lennard-Jones pair potential, epsilon = sigma = 1, cut and shifted. */
#include "md.h"

void md_potential_setup(struct md_potential *p, double cutoff) {
  const double inv2 = 1.0 / (cutoff * cutoff);
  const double inv6 = inv2 * inv2 * inv2;
  p->cutoff2 = cutoff * cutoff;
  p->shift = 4.0 * inv6 * (inv6 - 1.0);
}
