// A compound literal in a function body is an object with automatic storage, like a local: a
// pointer to it kept across a checkpoint must see its contents after a restart (see
// precompiler-bugs.md, golden-8: it is not part of the frame record, so the restarted run reads
// whatever the stack holds there).
//
// C3-RUN: after-commit:1

#include <stdio.h>

int sum(const int *v) { return v[0] + v[1] + v[2]; }

// CHECK-LABEL: int __c3_user_main(void) { struct __c3_frame_main {{.*}}
int main(void) {
  int *p = (int[]){10, 20, 30};
  const char *word = (char[]){'o', 'k', 0};
#pragma ccc_checkpoint force
  printf("%d %d %s\n", p[1], sum(p), word);
  return 0;
}
