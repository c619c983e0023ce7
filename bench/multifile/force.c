/* force.c - the hot kernel. It cannot reach a checkpoint, but compiled alone it cannot know that
 * md_potential_setup and md_zero (other files) do not; its pair loop calls nothing. */
#include "md.h"

double md_forces(struct md_system *s, double cutoff) {
  struct md_potential lj;
  md_potential_setup(&lj, cutoff);
  md_zero(s->force, 3 * s->n);
  const double box = s->box, half = 0.5 * s->box;
  double potential = 0.0;
  for (int i = 0; i < s->n; ++i) {
    const double xi = s->pos[3 * i], yi = s->pos[3 * i + 1], zi = s->pos[3 * i + 2];
    double fx = 0.0, fy = 0.0, fz = 0.0;
    for (int j = i + 1; j < s->n; ++j) {
      double dx = xi - s->pos[3 * j], dy = yi - s->pos[3 * j + 1], dz = zi - s->pos[3 * j + 2];
      /* minimum image: positions are in [0, box), so one correction suffices */
      dx += dx > half ? -box : dx < -half ? box : 0.0;
      dy += dy > half ? -box : dy < -half ? box : 0.0;
      dz += dz > half ? -box : dz < -half ? box : 0.0;
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= lj.cutoff2) continue;
      const double inv2 = 1.0 / r2;
      const double inv6 = inv2 * inv2 * inv2;
      const double f = 24.0 * inv6 * (2.0 * inv6 - 1.0) * inv2; /* |F| / r */
      potential += 4.0 * inv6 * (inv6 - 1.0) - lj.shift;
      fx += f * dx;
      fy += f * dy;
      fz += f * dz;
      s->force[3 * j] -= f * dx;
      s->force[3 * j + 1] -= f * dy;
      s->force[3 * j + 2] -= f * dz;
    }
    s->force[3 * i] += fx;
    s->force[3 * i + 1] += fy;
    s->force[3 * i + 2] += fz;
  }
  return potential;
}
