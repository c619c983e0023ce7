/* Prints far more than a stdio buffer between checkpoints, so output written after a checkpoint
 * really leaves the process before it is killed. */
#include <stdio.h>

int main(void) {
  unsigned long acc = 1;
  for (int step = 1; step <= 40; step++) {
    for (int line = 0; line < 200; line++) {
      acc = acc * 6364136223846793005ul + 1442695040888963407ul;
      printf("step %d line %d value %lu\n", step, line, acc >> 33);
    }
    fflush(stdout);
    if (step % 10 == 0) {
#pragma ccc_checkpoint force
    }
  }
  printf("done %lu\n", acc);
  return 0;
}
