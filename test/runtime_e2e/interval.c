/* Original program for the runtime end-to-end test; interval.c3.c is this file as c3-precompile
 * rewrites it. A long loop with an unforced pragma (checkpoints every C3_INTERVAL), a pragma
 * inside a qsort callback (c3 must refuse that checkpoint and keep running), and an on-restart
 * callback whose argument lives in the heap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c3/c3.h"

#define N 64

static int cmp_calls;
static unsigned long state = 12345;
static char *callback_arg;

static int cmp(const void *a, const void *b) {
  cmp_calls++;
  if (cmp_calls == 1) {
#pragma ccc_checkpoint force
  }
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void reopened(void *arg) { fprintf(stderr, "on_restart: %s\n", (char *)arg); }

int main(void) {
  int *v = malloc(N * sizeof *v);
  for (int i = 0; i < N; i++) {
    state = state * 6364136223846793005ul + 1442695040888963407ul;
    v[i] = (int)(state >> 40);
  }
  callback_arg = strdup("arg in the heap");
  c3_on_restart(reopened, callback_arg);
  qsort(v, N, sizeof *v, cmp);
  unsigned long h = 0;
  for (long i = 0; i < 40000000; i++) {
    h = h * 1099511628211ul + (unsigned long)v[i % N] + (unsigned long)i;
    if (i % 4000000 == 0) printf("i=%ld h=%016lx\n", i, h);
#pragma ccc_checkpoint
  }
  printf("final h=%016lx sorted=%d\n", h, v[0] <= v[N - 1]);
  return 0;
}
