/* dice.c - plays a dice game many times with the C library's rand() and reports the odds.
 * A summary is printed at exit by an atexit() handler.
 */
#include <stdio.h>
#include <stdlib.h>

static long games, wins;

static void summary(void) {
  printf("summary: %ld games, %ld wins (%.4f)\n", games, wins, games ? (double)wins / games : 0.0);
}

static int roll(void) { return 1 + rand() % 6; }

/* Craps-like: 7 or 11 wins, 2, 3 or 12 loses, otherwise roll until the point or a 7. */
static int play(void) {
  int first = roll() + roll();
  if (first == 7 || first == 11) return 1;
  if (first == 2 || first == 3 || first == 12) return 0;
  for (;;) {
    int next = roll() + roll();
    if (next == first) return 1;
    if (next == 7) return 0;
  }
}

int main(void) {
  atexit(summary);
  srand(2024);
  for (int round = 1; round <= 10; round++) {
    for (int i = 0; i < 5000; i++) {
      wins += play();
      games++;
    }
    printf("round %2d: %ld of %ld won\n", round, wins, games);
#pragma ccc_checkpoint force
  }
  return 0;
}
