// reentry-dispatch: an instrumented function pushes its frame at entry and, during a restart,
// restores it and jumps to the label of the site that was active (hoist-locals numbered and
// labelled the sites, braced when they are the unbraced body of if/else/loops/case/label, and
// saves and reloads the register locals around them); every site's call announces its callee;
// every return and the end of the body pop the frame. The program checkpoints deep in a recursion and is restarted there.
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:4

int printf(const char *, ...);

static int depth_seen;

// CHECK-LABEL: void leaf(int depth) { struct __c3_frame_leaf { struct __c3_frame h; } __c3_fr; __c3_fr.h.prev = __c3_top; __c3_fr.h.site = 0; __c3_fr.h.size = sizeof __c3_fr; __c3_fr.h.function = "leaf"; __c3_fr.h.entered_by_replayable_call = __c3_call_expected == (__c3_function)leaf; __c3_call_expected = 0; __c3_top = &__c3_fr.h; if (__builtin_expect(__c3_restoring, 0)) { __c3_frame_restore(&__c3_fr.h); switch (__c3_fr.h.site) { case 1: goto __c3_L1; default: __c3_bad_site(&__c3_fr.h); } }
// CHECK-NEXT: if (depth > depth_seen) depth_seen = depth;
// CHECK-NEXT: if (depth % 3 == 0) {
// CHECK-NEXT: __c3_fr.h.site = 1; __c3_L1: __c3_checkpoint_site(1, "reentry_dispatch.c:[[@LINE+8]]");
// CHECK-NEXT: }
// A void function pops its frame where it falls off the end, and at `return;`.
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return; }
// CHECK-NEXT: __c3_top = __c3_fr.h.prev; }
void leaf(int depth) {
  if (depth > depth_seen) depth_seen = depth;
  if (depth % 3 == 0) {
#pragma ccc_checkpoint force
  }
  return;
}

// CHECK-LABEL: int walk(int depth) { struct __c3_frame_walk {{.*}} switch (__c3_fr.h.site) { case 1: goto __c3_L1; case 2: goto __c3_L2; case 3: goto __c3_L3; case 4: goto __c3_L4; case 5: goto __c3_L5; case 6: goto __c3_L6; case 7: goto __c3_L7; default: __c3_bad_site(&__c3_fr.h); } }
// CHECK-NEXT: int total = 0;
// CHECK-NEXT: if (depth == 0) { __c3_top = __c3_fr.h.prev; return 0; }
// CHECK-NEXT: if (depth & 1) { {{.*}}; __c3_fr.h.site = 1; __c3_L1: {{.*}}; __c3_call_expected = (__c3_function)(leaf); leaf(depth); }
// CHECK-NEXT: else { {{.*}}; __c3_fr.h.site = 2; __c3_L2: {{.*}}; __c3_call_expected = (__c3_function)(walk); total = walk(depth - 1); }
// CHECK-NEXT: for (int i = 0; i < 2; i++) { {{.*}}; __c3_fr.h.site = 3; __c3_L3: {{.*}}; __c3_call_expected = (__c3_function)(leaf); leaf(depth + i); }
// CHECK-NEXT: while (total > 100) { {{.*}}; __c3_fr.h.site = 4; __c3_L4: {{.*}}; __c3_call_expected = (__c3_function)(walk); total = walk(0); }
// CHECK-NEXT: do { {{.*}}; __c3_fr.h.site = 5; __c3_L5: {{.*}}; __c3_call_expected = (__c3_function)(leaf); leaf(depth); } while (0);
// CHECK-NEXT: switch (depth % 4) {
// CHECK-NEXT: case 2:
// CHECK-NEXT: { {{.*}}; __c3_fr.h.site = 6; __c3_L6: {{.*}}; __c3_call_expected = (__c3_function)(walk); total = walk(1); }
// CHECK-NEXT: break;
// CHECK-NEXT: default:
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return total + depth; }
// CHECK-NEXT: }
// CHECK-NEXT: again:
// CHECK-NEXT: { {{.*}}; __c3_fr.h.site = 7; __c3_L7: {{.*}}; __c3_call_expected = (__c3_function)(walk); total = walk(depth - 2); }
// CHECK-NEXT: if (total < 0) goto again;
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return total + 2 * depth; }
// CHECK-NEXT: __c3_top = __c3_fr.h.prev; }
int walk(int depth) {
  int total = 0;
  if (depth == 0) return 0;
  if (depth & 1) leaf(depth);
  else total = walk(depth - 1);
  for (int i = 0; i < 2; i++) leaf(depth + i);
  while (total > 100) total = walk(0);
  do leaf(depth); while (0);
  switch (depth % 4) {
  case 2:
    total = walk(1);
    break;
  default:
    return total + depth;
  }
again:
  total = walk(depth - 2);
  if (total < 0) goto again;
  return total + 2 * depth;
}

// Functions that reach no checkpoint get no frame, no push and no pop.
// CHECK-LABEL: int square(int n) {
// CHECK-NEXT: return n * n;
// CHECK-NEXT: }
int square(int n) {
  return n * n;
}

int main(void) {
  printf("walk %d\n", walk(9));
  printf("walk %d\n", walk(6));
  printf("deepest %d, square %d\n", depth_seen, square(7));
  return 0;
}
