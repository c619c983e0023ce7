/* init.c - a cubic lattice and reproducible random velocities (own generator, so every build
 * and every libc starts alike). */
#include <math.h>
#include <stdlib.h>

#include "md.h"

static double uniform(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) / 16777216.0;
}

void md_init(struct md_system *s, int n, double density, unsigned seed) {
  s->n = n;
  s->box = cbrt(n / density);
  s->pos = malloc(3 * (size_t)n * sizeof *s->pos);
  s->vel = malloc(3 * (size_t)n * sizeof *s->vel);
  s->force = malloc(3 * (size_t)n * sizeof *s->force);
  int side = 1;
  while (side * side * side < n) ++side;
  const double spacing = s->box / side;
  double momentum[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < n; ++i) {
    s->pos[3 * i] = (i % side + 0.5) * spacing;
    s->pos[3 * i + 1] = (i / side % side + 0.5) * spacing;
    s->pos[3 * i + 2] = (i / (side * side) + 0.5) * spacing;
    for (int c = 0; c < 3; ++c) {
      s->vel[3 * i + c] = uniform(&seed) - 0.5;
      momentum[c] += s->vel[3 * i + c];
    }
  }
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) s->vel[3 * i + c] -= momentum[c] / n;
}

void md_free(struct md_system *s) {
  free(s->pos);
  free(s->vel);
  free(s->force);
}
