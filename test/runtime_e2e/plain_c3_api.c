/* The application API (c3.h) for the plain, uninstrumented builds that give expected outputs. */
#include "c3/c3.h"

int c3_restarting(void) { return 0; }
int c3_on_restart(void (*callback)(void *arg), void *arg) {
  (void)callback;
  (void)arg;
  return 0;
}
long c3_restart_checkpoint(void) { return 0; }
