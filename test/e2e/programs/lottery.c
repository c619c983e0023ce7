/* lottery.c - draws lottery tickets with the C library's random() family: first from the
 * default state (no seed), then after srandom(), then from a larger state array of its own
 * (initstate) and back (setstate). Two atexit() handlers print the totals in reverse order of
 * registration.
 */
#include <stdio.h>
#include <stdlib.h>

static char big_state[256]; /* degree-63 generator, the program's own memory */
static long drawn, jackpots;

static void report_draws(void) { printf("exit: %ld numbers drawn\n", drawn); }
static void report_jackpots(void) { printf("exit: %ld jackpots\n", jackpots); }

static void ticket(const char *label, int round) {
  long sum = 0;
  printf("%s %2d:", label, round);
  for (int i = 0; i < 6; i++) {
    long n = 1 + random() % 49;
    sum += n;
    drawn++;
    printf(" %2ld", n);
  }
  if (sum % 37 == 0) jackpots++;
  printf("  (sum %ld)\n", sum);
}

int main(void) {
  atexit(report_draws);
  for (int round = 1; round <= 4; round++) {
    ticket("default", round);
#pragma ccc_checkpoint force
  }
  srandom(1999);
  for (int round = 1; round <= 4; round++) {
    ticket("seeded ", round);
#pragma ccc_checkpoint force
  }
  atexit(report_jackpots);
  char *previous = initstate(77, big_state, sizeof big_state);
  for (int round = 1; round <= 4; round++) {
    ticket("own    ", round);
#pragma ccc_checkpoint force
  }
  setstate(previous);
  for (int round = 1; round <= 4; round++) {
    ticket("back   ", round);
    if (round % 2 == 0) {
      srand(round); /* rand() shares the state */
      printf("rand: %d\n", rand() % 1000);
    }
#pragma ccc_checkpoint force
  }
  return 0;
}
