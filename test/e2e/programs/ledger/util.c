/* util.c - small helpers for the ledger; nothing here can reach a checkpoint. */
#include <stdio.h>
#include <stdlib.h>

#include "ledger.h"

static unsigned long calls; /* same name as a static in report.c */

unsigned long mix_hash(unsigned long h, long value) {
  calls++;
  h ^= (unsigned long)value + 0x9e3779b97f4a7c15UL + (h << 6) + (h >> 2);
  return h;
}

char *format_cents(char *out, size_t size, long cents) {
  long whole = labs(cents) / 100, part = labs(cents) % 100;
  snprintf(out, size, "%s%ld.%02ld", cents < 0 ? "-" : "", whole, part);
  return out;
}

unsigned next_random(unsigned long *state) {
  *state = *state * 6364136223846793005UL + 1;
  return (unsigned)(*state >> 33);
}

int clamp_int(int v, int lo, int hi) {
  if (calls == 0) calls = 1;
  return v < lo ? lo : v > hi ? hi : v;
}
