/* bodies.c - a toy rigid-body simulation with tagged shapes.
 *
 * Bodies carry a name and an id that never change (const members), a position and velocity
 * (nested structs), a shape (a tagged union) and a small trail of past positions (an array in
 * the struct). Vector helpers return structs by value; a step returns a summary struct.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

struct vec2 {
  double x, y;
};

struct box {
  struct vec2 min, max;
};

enum shape_kind { SHAPE_CIRCLE, SHAPE_RECT, SHAPE_POINT };

struct shape {
  enum shape_kind kind;
  union {
    struct {
      double radius;
    } circle;
    struct {
      double w, h;
    } rect;
    unsigned char raw[16];
  } u;
};

#define TRAIL 4

struct body {
  const char *const name;
  const int id;
  struct vec2 pos, vel;
  struct shape shape;
  double mass;
  struct vec2 trail[TRAIL];
  int bounces;
};

struct step_summary {
  int step;
  double energy;
  struct box bounds;
  int collisions;
  char leader[12];
};

struct settings {
  const double dt;
  const struct vec2 gravity;
  const struct box walls;
  const int steps;
};

union bits {
  double d;
  unsigned long long u;
  unsigned char bytes[8];
};

static struct body bodies[5] = {
    {"pebble", 1, {1.0, 9.0}, {0.5, 0.0}, {SHAPE_CIRCLE, {.circle = {0.25}}}, 0.2, {{0}}, 0},
    {"crate", 2, {4.0, 6.0}, {-0.3, 0.4}, {SHAPE_RECT, {.rect = {1.0, 0.8}}}, 3.0, {{0}}, 0},
    {"ball", 3, {7.0, 8.0}, {-1.1, -0.2}, {SHAPE_CIRCLE, {.circle = {0.6}}}, 1.1, {{0}}, 0},
    {"speck", 4, {2.5, 3.0}, {0.9, 1.7}, {SHAPE_POINT, {.raw = {0}}}, 0.01, {{0}}, 0},
    {"plank", 5, {5.5, 1.5}, {0.2, 2.5}, {SHAPE_RECT, {.rect = {2.0, 0.3}}}, 1.8, {{0}}, 0},
};

static struct vec2 vadd(struct vec2 a, struct vec2 b) {
  struct vec2 r = {a.x + b.x, a.y + b.y};
  return r;
}

static struct vec2 vscale(struct vec2 a, double k) { return (struct vec2){a.x * k, a.y * k}; }

static double vdot(struct vec2 a, struct vec2 b) { return a.x * b.x + a.y * b.y; }

static struct vec2 half_extent(const struct shape *s) {
  switch (s->kind) {
  case SHAPE_CIRCLE: return (struct vec2){s->u.circle.radius, s->u.circle.radius};
  case SHAPE_RECT: return (struct vec2){s->u.rect.w / 2, s->u.rect.h / 2};
  default: return (struct vec2){0, 0};
  }
}

static struct box bounds_of(const struct body *b) {
  struct vec2 h = half_extent(&b->shape);
  struct box r;
  r.min = vadd(b->pos, vscale(h, -1.0));
  r.max = vadd(b->pos, h);
  return r;
}

static struct box merge(struct box a, struct box b) {
  struct box r = a;
  if (b.min.x < r.min.x) r.min.x = b.min.x;
  if (b.min.y < r.min.y) r.min.y = b.min.y;
  if (b.max.x > r.max.x) r.max.x = b.max.x;
  if (b.max.y > r.max.y) r.max.y = b.max.y;
  return r;
}

static int overlap(struct box a, struct box b) {
  return a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y;
}

/* Keeps a body inside the walls; returns 1 when it bounced. */
static int bounce(struct body *b, const struct settings *cfg) {
  struct box bb = bounds_of(b);
  int hit = 0;
  if (bb.min.x < cfg->walls.min.x || bb.max.x > cfg->walls.max.x) {
    b->vel.x = -b->vel.x * 0.9;
    b->pos.x += bb.min.x < cfg->walls.min.x ? cfg->walls.min.x - bb.min.x : cfg->walls.max.x - bb.max.x;
    hit = 1;
  }
  if (bb.min.y < cfg->walls.min.y || bb.max.y > cfg->walls.max.y) {
    b->vel.y = -b->vel.y * 0.8;
    b->pos.y += bb.min.y < cfg->walls.min.y ? cfg->walls.min.y - bb.min.y : cfg->walls.max.y - bb.max.y;
    hit = 1;
  }
  return hit;
}

static struct step_summary advance(struct body *set, int count, const struct settings *cfg, int step) {
  struct step_summary sum;
  memset(&sum, 0, sizeof sum);
  sum.step = step;
  double best_height = -1e9;
  for (int i = 0; i < count; i++) {
    struct body *b = &set[i];
    memmove(&b->trail[1], &b->trail[0], (TRAIL - 1) * sizeof b->trail[0]);
    b->trail[0] = b->pos;
    b->vel = vadd(b->vel, vscale(cfg->gravity, cfg->dt));
    b->pos = vadd(b->pos, vscale(b->vel, cfg->dt));
    b->bounces += bounce(b, cfg);
    sum.energy += 0.5 * b->mass * vdot(b->vel, b->vel) + b->mass * -cfg->gravity.y * b->pos.y;
    sum.bounds = i == 0 ? bounds_of(b) : merge(sum.bounds, bounds_of(b));
    if (b->pos.y > best_height) {
      best_height = b->pos.y;
      snprintf(sum.leader, sizeof sum.leader, "%s", b->name);
    }
  }
  for (int i = 0; i < count; i++)
    for (int j = i + 1; j < count; j++)
      if (overlap(bounds_of(&set[i]), bounds_of(&set[j]))) sum.collisions++;
  if (step % 150 == 0) {
#pragma ccc_checkpoint force
    sum.collisions += 0;
  }
  return sum;
}

static unsigned long long fingerprint(double d) {
  union bits b;
  b.d = d;
  return b.u;
}

static void describe(const struct body *b) {
  const char *kinds[] = {"circle", "rect", "point"};
  struct box bb = bounds_of(b);
  printf("  %-6s #%d %-6s at (%8.4f, %8.4f) v=(%8.4f, %8.4f) bounces %2d box [%.3f..%.3f]x[%.3f..%.3f]\n",
         b->name, b->id, kinds[b->shape.kind], b->pos.x, b->pos.y, b->vel.x, b->vel.y, b->bounces,
         bb.min.x, bb.max.x, bb.min.y, bb.max.y);
}

int main(void) {
  const struct settings cfg = {0.01, {0.0, -9.81}, {{0.0, 0.0}, {10.0, 10.0}}, 1200};
  struct step_summary history[8];
  int recorded = 0;
  struct body local_copy[2] = {
      {"ghost", 10, {5.0, 5.0}, {1.0, -1.0}, {SHAPE_CIRCLE, {.circle = {0.4}}}, 0.5, {{0}}, 0},
      {"wisp", 11, {1.0, 1.0}, {2.0, 3.0}, {SHAPE_POINT, {.raw = {1, 2, 3}}}, 0.05, {{0}}, 0},
  };

  for (int step = 1; step <= cfg.steps; step++) {
    struct step_summary s = advance(bodies, 5, &cfg, step);
    struct step_summary ghosts = advance(local_copy, 2, &cfg, step);
    if (step % 100 == 0) {
      history[recorded % 8] = s;
      recorded++;
      printf("step %4d: energy %10.4f, bounds [%.3f..%.3f]x[%.3f..%.3f], %d overlaps, top %s;"
             " ghosts %.4f %s\n",
             s.step, s.energy, s.bounds.min.x, s.bounds.max.x, s.bounds.min.y, s.bounds.max.y,
             s.collisions, s.leader, ghosts.energy, ghosts.leader);
    }
  }
  for (int i = 0; i < 5; i++) describe(&bodies[i]);
  for (int i = 0; i < 2; i++) describe(&local_copy[i]);
  double total = 0;
  for (int i = 0; i < 8; i++) total += history[i].energy;
  printf("history total %.6f, last bits %016llx, trail of ball (%.4f, %.4f) (%.4f, %.4f)\n", total,
         fingerprint(history[(recorded - 1) % 8].energy), bodies[2].trail[0].x, bodies[2].trail[0].y,
         bodies[2].trail[TRAIL - 1].x, bodies[2].trail[TRAIL - 1].y);
  printf("distance fallen by the crate: %.6f\n", sqrt(vdot(vadd(bodies[1].pos, vscale((struct vec2){4.0, 6.0}, -1.0)),
                                                        vadd(bodies[1].pos, vscale((struct vec2){4.0, 6.0}, -1.0)))));
  return 0;
}
