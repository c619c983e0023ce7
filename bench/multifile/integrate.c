/* integrate.c - velocity Verlet (unit masses). */
#include "md.h"

void md_kick(struct md_system *s, double dt) {
  for (int k = 0; k < 3 * s->n; ++k) s->vel[k] += 0.5 * dt * s->force[k];
}

void md_drift(struct md_system *s, double dt) {
  for (int k = 0; k < 3 * s->n; ++k) s->pos[k] += dt * s->vel[k];
  md_wrap(s->pos, 3 * s->n, s->box);
}

double md_kinetic(const struct md_system *s) {
  double sum = 0.0;
  for (int k = 0; k < 3 * s->n; ++k) sum += s->vel[k] * s->vel[k];
  return 0.5 * sum;
}
