// split-calls, expressions: reaching calls are lowered in C's evaluation order into temporaries,
// each call a statement `t = call(args);` of its own whose arguments have no side effects.
// `&&`, `||` and `?:` become if/else so their operands still run conditionally; `,` becomes a
// sequence. `x = call(...);`, `call(...);` and `T x = call(...);` are already in final form.
//
// C3-RUN: after-commit:2
// C3-RUN: after-commit:6

int printf(const char *, ...);

static int calls;
int step(int n) {
  if (++calls % 5 == 0) {
#pragma ccc_checkpoint force
  }
  return n + 1;
}
void note(int n) { step(n); }
int twice(int n) { return 2 * n; }
int (*const table[2])(int) = {step, twice};

// CHECK-LABEL: int canonical(int n) { struct __c3_frame_canonical {{.*}}
// CHECK-NEXT: int x; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); x = step(n);
// CHECK-NEXT: {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(step); x = step(x);
// CHECK-NEXT: {{.*}}__c3_fr.h.site = 3; __c3_L3: {{.*}}__c3_call_expected = (__c3_function)(step); step(x);
// CHECK-NEXT: {{.*}}__c3_fr.h.site = 4; __c3_L4: {{.*}}__c3_call_expected = (__c3_function)(step); (void)step(x);
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return x; }
int canonical(int n) {
  int x = step(n);
  x = step(x);
  step(x);
  (void)step(x);
  return x;
}

// CHECK-LABEL: int returns(int n) { struct __c3_frame_returns {{.*}}
// CHECK-NEXT: if (n > 10) { int __c3_t1; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t1 = step(n); { __c3_top = __c3_fr.h.prev; return __c3_t1 + 1; } }
// Nested calls: the inner ones first, left to right, then the sum, then the outer call.
// CHECK-NEXT: { int [[A:__c3_t[0-9]+]]; int [[B:__c3_t[0-9]+]]; int [[SUM:__c3_t[0-9]+]]; int [[OUT:__c3_t[0-9]+]]; {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(step); [[A]] = step(n); {{.*}}__c3_fr.h.site = 3; __c3_L3: {{.*}}__c3_call_expected = (__c3_function)(step); [[B]] = step(n + 1); [[SUM]] = [[A]] + [[B]]; {{.*}}__c3_fr.h.site = 4; __c3_L4: {{.*}}__c3_call_expected = (__c3_function)(step); [[OUT]] = step([[SUM]]); { __c3_top = __c3_fr.h.prev; return [[OUT]]; } }
int returns(int n) {
  if (n > 10) return step(n) + 1;
  return step(step(n) + step(n + 1));
}

// CHECK-LABEL: int logic(int n) { struct __c3_frame_logic {{.*}}
// CHECK-NEXT: int __c3_t1; int __c3_t2; __c3_t1 = (n > 0) != 0; if (__c3_t1) { {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t2 = step(n); __c3_t1 = (__c3_t2) != 0; } int r = __c3_t1;
// CHECK-NEXT: int __c3_t3; int __c3_t4; __c3_t3 = (n < 0) != 0; if (!__c3_t3) { {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t4 = step(r); __c3_t3 = (__c3_t4 > 3) != 0; } r += __c3_t3;
// CHECK-NEXT: int __c3_t5; int __c3_t6; int __c3_t7; if (n) { {{.*}}__c3_fr.h.site = 3; __c3_L3: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t5 = step(r); __c3_t7 = __c3_t5; } else { {{.*}}__c3_fr.h.site = 4; __c3_L4: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t6 = step(-r); __c3_t7 = __c3_t6; } r = __c3_t7;
// CHECK-NEXT: int __c3_t8; {{.*}}__c3_fr.h.site = 5; __c3_L5: {{.*}}__c3_call_expected = (__c3_function)(note); note(n); (void)(((void)0)); {{.*}}__c3_fr.h.site = 6; __c3_L6: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t8 = step(r); r = (__c3_t8);
// As statements, the value of `&&` and `?:` is dropped.
// CHECK-NEXT: int [[AND:__c3_t[0-9]+]]; int [[R:__c3_t[0-9]+]]; [[AND]] = (n > 2) != 0; if ([[AND]]) { {{.*}}__c3_fr.h.site = 7; __c3_L7: {{.*}}__c3_call_expected = (__c3_function)(step); [[R]] = step(n); [[AND]] = ([[R]]) != 0; }
// CHECK-NEXT: if (n) { {{.*}}__c3_fr.h.site = 8; __c3_L8: {{.*}}__c3_call_expected = (__c3_function)(note); note(1); (void)(((void)0)); } else { {{.*}}__c3_fr.h.site = 9; __c3_L9: {{.*}}__c3_call_expected = (__c3_function)(note); note(2); (void)(((void)0)); }
int logic(int n) {
  int r = n > 0 && step(n);
  r += n < 0 || step(r) > 3;
  r = n ? step(r) : step(-r);
  r = (note(n), step(r));
  n > 2 && step(n);
  n ? note(1) : note(2);
  return r;
}

// CHECK-LABEL: int declarations(int n) { struct __c3_frame_declarations {{.*}}
// CHECK-NEXT: int plain; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); plain = step(n);
// CHECK-NEXT: int __c3_t1; {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t1 = step(n); int scaled = __c3_t1 * 2;
// CHECK-NEXT: int __c3_t2; int __c3_t3; {{.*}}__c3_fr.h.site = 3; __c3_L3: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t2 = step(1); {{.*}}__c3_fr.h.site = 4; __c3_L4: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t3 = step(2); __builtin_memcpy(&__c3_fr.a, &(int[2]){__c3_t2, __c3_t3}, sizeof __c3_fr.a);
// sizeof does not evaluate its operand: nothing to split.
// CHECK-NEXT: int unevaluated = sizeof step(n);
int declarations(int n) {
  int plain = step(n);
  int scaled = step(n) * 2;
  int a[2] = {step(1), step(2)};
  int unevaluated = sizeof step(n);
  return plain + scaled + a[1] + unevaluated;
}

// Arguments and callees with side effects are evaluated into temporaries before the call, so
// re-issuing the call on restart evaluates nothing twice. Calls that reach no checkpoint (twice)
// count as side effects too. Through a pointer, every call may reach a checkpoint.
// CHECK-LABEL: int arguments(int n) { struct __c3_frame_arguments {{.*}}
// CHECK-NEXT: int __c3_t1; int __c3_t2; __c3_t1 = n++; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t2 = step(__c3_t1); int r = __c3_t2;
// CHECK-NEXT: int __c3_t3; int __c3_t4; __c3_t3 = twice(n); {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t4 = step(__c3_t3); r += __c3_t4;
// CHECK-NEXT: int __c3_t5; {{.*}}__c3_fr.h.site = 3; __c3_L3: {{.*}}__c3_call_expected = (__c3_function)(table[n & 1]); __c3_t5 = table[n & 1](r); r += __c3_t5;
// CHECK-NEXT: int k = 0;
// CHECK-NEXT: int (*__c3_t6)(int); int __c3_t7; __c3_t6 = table[k++]; {{.*}}__c3_fr.h.site = 4; __c3_L4: {{.*}}__c3_call_expected = (__c3_function)(__c3_t6); __c3_t7 = __c3_t6(r); r += __c3_t7;
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.a, &(int[3]){0, 0, 0}, sizeof __c3_fr.a);
// CHECK-NEXT: int __c3_t8; int __c3_t9; {{.*}}__c3_fr.h.site = 5; __c3_L5: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t8 = step(0); {{.*}}__c3_fr.h.site = 6; __c3_L6: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t9 = step(1); __c3_fr.a[__c3_t8] = __c3_t9;
int arguments(int n) {
  int r = step(n++);
  r += step(twice(n));
  r += table[n & 1](r);
  int k = 0;
  r += table[k++](r);
  int a[3] = {0, 0, 0};
  a[step(0)] = step(1);
  return r + a[1] + k;
}

// A temporary has the type of its call.
// CHECK: const char *pick(int n) { struct __c3_frame_pick { struct __c3_frame h; int n; } __c3_fr; {{.*}}
// CHECK-NEXT: { const char *[[T:__c3_t[0-9]+]]; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(name); [[T]] = name(n); { __c3_top = __c3_fr.h.prev; return [[T]] + 1; } }
const char *name(int n) {
  step(n);
  return n ? "one" : "two";
}
const char *pick(int n) {
  return name(n) + 1;
}

int main(void) {
  printf("canonical %d\n", canonical(1));
  printf("returns %d %d\n", returns(11), returns(1));
  printf("logic %d %d %d\n", logic(0), logic(3), logic(-2));
  printf("declarations %d\n", declarations(4));
  printf("arguments %d %d\n", arguments(0), arguments(3));
  printf("pick %s\n", pick(1));
  printf("calls %d\n", calls);
  return 0;
}
