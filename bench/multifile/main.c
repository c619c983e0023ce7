/* main.c - md [PARTICLES [STEPS]]: the time-step loop, with a checkpoint pragma in every step. */
#include <stdlib.h>

#include "md.h"

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? atoi(argv[2]) : 20;
  const double dt = 0.002, cutoff = 2.5;
  struct md_system s;
  md_init(&s, n, 0.8, 12345u);
  double potential = md_forces(&s, cutoff);
  md_report(0, potential, md_kinetic(&s));
  for (int step = 1; step <= steps; ++step) {
    md_kick(&s, dt);
    md_drift(&s, dt);
    potential = md_forces(&s, cutoff);
    md_kick(&s, dt);
#pragma ccc_checkpoint
    if (step % 10 == 0 || step == steps) md_report(step, potential, md_kinetic(&s));
  }
  md_free(&s);
  return 0;
}
