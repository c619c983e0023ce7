/* table.c - the player table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranking.h"

struct table {
  struct player *players;
  int count, capacity;
};

struct table *table_new(void) { return calloc(1, sizeof(struct table)); }

void table_free(struct table *t) {
  free(t->players);
  free(t);
}

int table_size(const struct table *t) { return t->count; }

struct player *table_at(struct table *t, int i) { return &t->players[i]; }

struct player *table_add(struct table *t, const char *name, double rating) {
  if (t->count == t->capacity) {
    t->capacity = t->capacity ? 2 * t->capacity : 4;
    t->players = realloc(t->players, (size_t)t->capacity * sizeof *t->players);
  }
  struct player *p = &t->players[t->count++];
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", name);
  p->rating = rating;
  return p;
}

double expected_score(double rating, double opponent) {
  return 1.0 / (1.0 + pow(10.0, (opponent - rating) / 400.0));
}
