/* force.c - the hot kernel: all pairs, each through helpers of other files. It cannot reach a
 * checkpoint, but compiled alone it cannot know that its callees do not. */
#include "md.h"

double md_forces(struct md_system *s, double cutoff) {
  const double cutoff2 = cutoff * cutoff;
  double potential = 0.0;
  for (int k = 0; k < 3 * s->n; ++k) s->force[k] = 0.0;
  for (int i = 0; i < s->n; ++i) {
    const double *pi = &s->pos[3 * i];
    double fx = 0.0, fy = 0.0, fz = 0.0;
    for (int j = i + 1; j < s->n; ++j) {
      double d[3];
      const double r2 = md_distance2(pi, &s->pos[3 * j], s->box, d);
      if (r2 >= cutoff2) continue;
      const double f = md_force_over_r(r2);
      potential += md_energy(r2);
      fx += f * d[0];
      fy += f * d[1];
      fz += f * d[2];
      s->force[3 * j] -= f * d[0];
      s->force[3 * j + 1] -= f * d[1];
      s->force[3 * j + 2] -= f * d[2];
    }
    s->force[3 * i] += fx;
    s->force[3 * i + 1] += fy;
    s->force[3 * i + 2] += fz;
  }
  return potential;
}
