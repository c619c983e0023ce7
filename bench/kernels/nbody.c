/* nbody.c - direct-summation gravitational n-body integration, a c3 benchmark kernel.
 *
 *   usage: nbody [bodies] [steps] [checkpoint period]     (defaults: 1500 40 1000000)
 *
 * The worst case for c3's instrumentation: the checkpoint pragmas sit in the same function as
 * the O(n^2) force loop, so every local of that loop (the accelerations, the distance terms, the
 * loop counters) lives in the function's frame record, whose address the runtime knows. The
 * compiler must then assume that stores through the body array may change those locals, which
 * keeps some of them in memory instead of registers. A plain compiler ignores the pragmas.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct body {
  double x, y, z;
  double vx, vy, vz;
  double mass;
};

static void fail(const char *message) {
  fprintf(stderr, "nbody: %s\n", message);
  exit(2);
}

static int positive_arg(int argc, char **argv, int index, int fallback) {
  if (argc <= index) return fallback;
  char *end = NULL;
  long value = strtol(argv[index], &end, 10);
  if (*end != '\0' || value < 1 || value > 100000000) fail("arguments must be positive integers");
  return (int)value;
}

/* A fixed pseudo-random cloud of bodies, identical for every compiler. */
static void init_bodies(struct body *bodies, int n) {
  unsigned long long state = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < n; ++i) {
    double coords[7];
    for (int c = 0; c < 7; ++c) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      coords[c] = (double)(state >> 11) / 9007199254740992.0;
    }
    bodies[i].x = coords[0] * 2.0 - 1.0;
    bodies[i].y = coords[1] * 2.0 - 1.0;
    bodies[i].z = coords[2] * 2.0 - 1.0;
    bodies[i].vx = (coords[3] - 0.5) * 0.01;
    bodies[i].vy = (coords[4] - 0.5) * 0.01;
    bodies[i].vz = (coords[5] - 0.5) * 0.01;
    bodies[i].mass = 0.5 + coords[6];
  }
}

/* Integrates `steps` steps; the pragmas make this function (and its hot loops) instrumented. */
static double simulate(struct body *bodies, int n, int steps, int checkpoint_period) {
  const double dt = 1e-4;
  const double softening = 1e-3;
  double kinetic = 0.0;
  for (int step = 1; step <= steps; ++step) {
    for (int i = 0; i < n; ++i) {
      double ax = 0.0, ay = 0.0, az = 0.0;
      for (int j = 0; j < n; ++j) {
        double dx = bodies[j].x - bodies[i].x;
        double dy = bodies[j].y - bodies[i].y;
        double dz = bodies[j].z - bodies[i].z;
        double r2 = dx * dx + dy * dy + dz * dz + softening;
        double scale = bodies[j].mass / (r2 * sqrt(r2));
        ax += dx * scale;
        ay += dy * scale;
        az += dz * scale;
      }
      bodies[i].vx += dt * ax;
      bodies[i].vy += dt * ay;
      bodies[i].vz += dt * az;
    }
    kinetic = 0.0;
    for (int i = 0; i < n; ++i) {
      bodies[i].x += dt * bodies[i].vx;
      bodies[i].y += dt * bodies[i].vy;
      bodies[i].z += dt * bodies[i].vz;
      kinetic += 0.5 * bodies[i].mass *
                 (bodies[i].vx * bodies[i].vx + bodies[i].vy * bodies[i].vy +
                  bodies[i].vz * bodies[i].vz);
    }
    if (step % checkpoint_period == 0) {
#pragma ccc_checkpoint force
    }
#pragma ccc_checkpoint
  }
  return kinetic;
}

int main(int argc, char **argv) {
  int n = positive_arg(argc, argv, 1, 1500);
  int steps = positive_arg(argc, argv, 2, 40);
  int checkpoint_period = positive_arg(argc, argv, 3, 1000000);
  struct body *bodies = malloc((size_t)n * sizeof *bodies);
  if (bodies == NULL) fail("out of memory");
  init_bodies(bodies, n);
  printf("nbody: %d bodies, %d steps\n", n, steps);
  double kinetic = simulate(bodies, n, steps, checkpoint_period);
  double position_sum = 0.0;
  for (int i = 0; i < n; ++i) position_sum += bodies[i].x + 2.0 * bodies[i].y + 3.0 * bodies[i].z;
  printf("kinetic energy %.12e  position checksum %.12e\n", kinetic, position_sum);
  free(bodies);
  return 0;
}
