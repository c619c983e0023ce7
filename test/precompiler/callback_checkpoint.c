// A checkpoint inside a callback called by a library (qsort) cannot be re-entered on restart and
// must be refused with a clear error, also when main itself reaches no checkpoint and so is not
// instrumented: then the callback's frame is the outermost one (see precompiler-bugs.md,
// golden-6; taken, the checkpoint restarts main from its beginning).
//
// C3-RUN:
// C3-RUN-STDERR: c3: warning: checkpoint at callback_checkpoint.c:17 not taken: it is reached through a call c3 cannot re-enter (into 'compare' from code c3 did not instrument, e.g. a library callback or a function c3 left uninstrumented); move the pragma out of it

#include <stdio.h>
#include <stdlib.h>

static int compares;

// CHECK-LABEL: int compare(const void *a, const void *b) { struct __c3_frame_compare {{.*}}
int compare(const void *a, const void *b) {
  if (++compares == 3) {
#pragma ccc_checkpoint force
  }
  return *(const int *)a - *(const int *)b;
}

// CHECK-LABEL: int __c3_user_main(void) {
int main(void) {
  int v[5] = {5, 3, 1, 4, 2};
  printf("start\n");
  qsort(v, 5, sizeof v[0], compare);
  printf("%d %d %d\n", v[0], v[4], compares);
  return 0;
}
