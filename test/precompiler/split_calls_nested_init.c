// split-calls in nested braced initializers: every reaching call is evaluated once, into a
// temporary, and the initializer uses the temporaries (see precompiler-bugs.md, golden-3).
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

static int calls;
int step(int n) {
  if (++calls % 3 == 0) {
#pragma ccc_checkpoint force
  }
  return n + 1;
}

struct pair { int a, b; };
struct two { struct pair in[2]; };
struct pair make(int n) {
  struct pair p = {n, n * 2};
  step(n);
  return p;
}

// CHECK-LABEL: int nested_init(int n) { struct __c3_frame_nested_init {{.*}}
// CHECK-NEXT: int __c3_t1; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); __c3_t1 = step(1); __builtin_memcpy(&__c3_fr.m, &(int[2][2]){{[{][{]}}__c3_t1, 2}, {3, n}}, sizeof __c3_fr.m);
// CHECK-NEXT: ; ; __c3_fr.h.site = 2; __c3_L2: __c3_call_expected = (__c3_function)(make); __c3_fr.__c3_t2 = make(1); __c3_fr.h.site = 3; __c3_L3: __c3_call_expected = (__c3_function)(make); __c3_fr.__c3_t3 = make(2); __c3_fr.t = (struct two){{[{][{]}}__c3_fr.__c3_t2, __c3_fr.__c3_t3}};
// CHECK-NOT: {{.*}}(struct two){{[{][{]}}make{{.*}}
int nested_init(int n) {
  int m[2][2] = {{step(1), 2}, {3, n}};
  struct two t = {{make(1), make(2)}};
  return m[0][0] + m[1][1] + t.in[0].b + t.in[1].a;
}

int main(void) {
  printf("%d\n", nested_init(7));
  printf("calls %d\n", calls);
  return 0;
}
