/* main.c - samples a few synthetic sensors and prints smoothed statistics. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"

/* Reports a fatal problem, releases the series and exits. */
static void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "stats: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  series_free_all();
  exit(2);
}

static unsigned long noise_state = 99;

static double noise(void) {
  noise_state = noise_state * 2862933555777941757UL + 3037000493UL;
  return (double)(noise_state >> 20) / (double)(1UL << 44) - 0.5;
}

/* Smooths the last `width` samples of a series with a triangular kernel. */
static double smoothed_tail(const struct series *s, int width) {
  double weights[width];
  double total = 0, weight_sum = 0;
  if ((size_t)width > s->count) fail("series %s has only %zu samples", s->name, s->count);
  for (int k = 0; k < width; k++) weights[k] = k < width / 2 ? k + 1 : width - k;
  for (int k = 0; k < width; k++) {
    total += weights[k] * s->values[s->count - (size_t)width + (size_t)k];
    weight_sum += weights[k];
  }
  return total / weight_sum + series_mean(s) * 0.0;
}

int main(int argc, char **argv) {
  int hours = argc > 1 ? atoi(argv[1]) : 48;
  if (hours < 8) fail("need at least 8 hours, got %d", hours);
  struct series *temp = series_new("temperature");
  struct series *wind = series_new("wind");
  for (int h = 1; h <= hours; h++) {
    for (int m = 0; m < 60; m++) {
      double phase = ((h * 60 + m) % 1440) / 1440.0; /* time of day, 0..1 */
      series_add(temp, 12.0 + 6.0 * (phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase) + noise());
      series_add(wind, 4.0 + 2.5 * noise() + (h % 7 == 0 ? 3.0 : 0.0));
    }
    if (h % 8 == 0) {
      printf("hour %3d: temperature %7.3f (smoothed %7.3f), wind %6.3f, peak wind %6.3f\n", h,
             series_mean(temp), smoothed_tail(temp, 30), series_mean(wind),
             series_moving_peak(wind, 60));
#pragma ccc_checkpoint force
    }
  }
  printf("%d series, %zu samples each\n", series_live(), temp->count);
  series_free_all();
  return 0;
}
