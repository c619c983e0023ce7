/* stats.h - running statistics over named series of samples. */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

struct series {
  char name[24];
  double *values;
  size_t count, capacity;
};

struct series *series_new(const char *name);
void series_add(struct series *s, double v);
double series_mean(const struct series *s);
double series_moving_peak(const struct series *s, int window);
void series_free_all(void);
int series_live(void);

#endif
