// split-calls, conditions of statements: a call that may reach a checkpoint moves out of an if or
// switch condition into a block before the statement; loop conditions and increments move into
// the loop body so they still run on every iteration, and after `continue`. A reaching for-init
// runs before the loop. The program is also run, killed after checkpoints and restarted.
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:5

int printf(const char *, ...);

static int calls;

// Every call may reach a checkpoint; every fourth call takes one.
int step(int n) {
  if (++calls % 4 == 0) {
#pragma ccc_checkpoint force
  }
  return n + 1;
}

// CHECK-LABEL: int if_condition(int n) { struct __c3_frame_if_condition {{.*}}
// CHECK-NEXT: int r = 0;
// CHECK-NEXT: { int __c3_t2; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t2 = step(n); if (__c3_t2 > 2)
// CHECK-NEXT: r = 1;
// CHECK-NEXT: else { int __c3_t1; {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t1 = step(r); if (__c3_t1 == 1)
// CHECK-NEXT: r = 2; } }
int if_condition(int n) {
  int r = 0;
  if (step(n) > 2)
    r = 1;
  else if (step(r) == 1)
    r = 2;
  return r;
}

// A while loop becomes `for (;;)` with the test first in its body.
// CHECK-LABEL: int while_condition(int i) { struct __c3_frame_while_condition {{.*}}
// CHECK-NEXT: int r = 0;
// CHECK-NEXT: for (;;) { int __c3_t1; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t1 = step(i); if (!(__c3_t1 < 5)) break; {
// CHECK-NEXT: if (++i == 2) continue;
// CHECK-NEXT: r += i;
// CHECK-NEXT: } }
int while_condition(int i) {
  int r = 0;
  while (step(i) < 5) {
    if (++i == 2) continue;
    r += i;
  }
  return r;
}

// A do-while tests at the top of every iteration but the first; the flag is cleared in the
// loop's increment, so `continue` reaches the test.
// CHECK-LABEL: int do_condition(int i) { struct __c3_frame_do_condition {{.*}}
// CHECK-NEXT: int r = 0;
// CHECK-NEXT: { int __c3_t1; int __c3_t2; __c3_t1 = 1; for (;; __c3_t1 = 0) { if (!__c3_t1) { {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t2 = step(i); if (!(__c3_t2 < 4)) break; } {
// CHECK-NEXT: r += i;
// CHECK-NEXT: if (i++ == 1) continue;
// CHECK-NEXT: r *= 2;
// CHECK-NEXT: } } }
int do_condition(int i) {
  int r = 0;
  do {
    r += i;
    if (i++ == 1) continue;
    r *= 2;
  } while (step(i) < 4);
  return r;
}

// All three parts of a for: the init runs before the loop, the increment (skipped on the first
// iteration) and then the condition at the top of the body.
// CHECK-LABEL: int for_loop(int n) { struct __c3_frame_for_loop {{.*}}
// CHECK-NEXT: int r = 0;
// CHECK-NEXT: { int __c3_t1; int __c3_t2; int __c3_t3; int i; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); i = step(0); __c3_t2 = 1; for (; ; __c3_t2 = 0) { if (!__c3_t2) { {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t3 = step(i); i += __c3_t3; } {{.*}}__c3_fr.h.site = 3; __c3_L3: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t1 = step(n); if (!(i < __c3_t1)) break; {
// CHECK-NEXT: if (i == 2) continue;
// CHECK-NEXT: r += i;
// CHECK-NEXT: } } }
int for_loop(int n) {
  int r = 0;
  for (int i = step(0); i < step(n); i += step(i)) {
    if (i == 2) continue;
    r += i;
  }
  return r;
}

// One part at a time; the parts that reach nothing stay where they are.
// CHECK-LABEL: int for_parts(int n) { struct __c3_frame_for_parts {{.*}}
// CHECK-NEXT: int r = 0, i;
// CHECK-NEXT: { int __c3_t1;  __c3_t1 = 1; for (i = 0; ; __c3_t1 = 0) { if (!__c3_t1) { {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); i = step(i); } if (!(i < n)) break; r += i; } }
// CHECK-NEXT: { int __c3_t2;  for (i = 0; ; i++) { {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t2 = step(i); if (!(__c3_t2 < n)) break; r += i; } }
// CHECK-NEXT: { {{.*}}__c3_fr.h.site = 3; __c3_L3: {{.*}}__c3_call_expected = (__c3_function)(step); i = step(n); for (; i > 0; i--) { r++; } }
int for_parts(int n) {
  int r = 0, i;
  for (i = 0; i < n; i = step(i)) r += i;
  for (i = 0; step(i) < n; i++) r += i;
  for (i = step(n); i > 0; i--) r++;
  return r;
}

// CHECK-LABEL: int switch_condition(int n) { struct __c3_frame_switch_condition {{.*}}
// CHECK-NEXT: { int __c3_t1; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t1 = step(n); switch (__c3_t1) {
// CHECK-NEXT: case 1:
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return 10; }
// CHECK-NEXT: default:
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return 20; }
// CHECK-NEXT: } }
int switch_condition(int n) {
  switch (step(n)) {
  case 1:
    return 10;
  default:
    return 20;
  }
}

// A condition that reaches nothing is left alone, even in an instrumented function.
// CHECK-LABEL: int untouched_conditions(int n) { struct __c3_frame_untouched_conditions {{.*}}
// CHECK-NEXT: while (n > 100) n /= 2;
// CHECK-NEXT: if (n == 3) { {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); n = step(n); }
int untouched_conditions(int n) {
  while (n > 100) n /= 2;
  if (n == 3) n = step(n);
  return n;
}

int main(void) {
  printf("if %d %d\n", if_condition(0), if_condition(5));
  printf("while %d\n", while_condition(0));
  printf("do %d %d\n", do_condition(0), do_condition(7));
  printf("for %d %d\n", for_loop(6), for_parts(6));
  printf("switch %d %d\n", switch_condition(0), switch_condition(1));
  printf("untouched %d %d\n", untouched_conditions(300), untouched_conditions(3));
  printf("calls %d\n", calls);
  return 0;
}
