#include <c3/c3.h>
#include <math.h>
#include <stdio.h>

#include "squares.h"

int main(void) {
  long total = 0;
  for (int i = 1; i <= 10; ++i) {
    total += square(i);
    if (i == 5) {
#pragma ccc_checkpoint force
    }
  }
  printf("sum of squares %ld, root %.1f, %s\n", total, HAVE_SQRT ? sqrt(16.0) : -1.0,
         c3_restarting() ? "restarted" : "fresh run");
  return 0;
}
