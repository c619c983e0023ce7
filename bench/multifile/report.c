/* report.c - the program's output. */
#include <stdio.h>

#include "md.h"

void md_report(int step, double potential, double kinetic) {
  printf("step %5d  potential %.9e  kinetic %.9e  total %.9e\n", step, potential, kinetic,
         potential + kinetic);
}
