/* series.c - storage for the series and the statistics computed on them. */
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static struct series *all[32];
static int n_all;

struct series *series_new(const char *name) {
  struct series *s = calloc(1, sizeof *s);
  strncpy(s->name, name, sizeof s->name - 1);
  all[n_all++] = s;
  return s;
}

void series_add(struct series *s, double v) {
  if (s->count == s->capacity) {
    s->capacity = s->capacity ? s->capacity * 2 : 16;
    s->values = realloc(s->values, s->capacity * sizeof *s->values);
  }
  s->values[s->count++] = v;
}

double series_mean(const struct series *s) {
  double sum = 0;
  for (size_t i = 0; i < s->count; i++) sum += s->values[i];
  return s->count ? sum / (double)s->count : 0.0;
}

/* Largest mean over `window` consecutive samples. */
double series_moving_peak(const struct series *s, int window) {
  double best = -1e300, sum = 0;
  for (size_t i = 0; i < s->count; i++) {
    sum += s->values[i];
    if (i >= (size_t)window) sum -= s->values[i - (size_t)window];
    if (i + 1 >= (size_t)window && sum / window > best) best = sum / window;
  }
  return best;
}

int series_live(void) { return n_all; }

void series_free_all(void) {
  for (int i = 0; i < n_all; i++) {
    free(all[i]->values);
    free(all[i]);
  }
  n_all = 0;
}
