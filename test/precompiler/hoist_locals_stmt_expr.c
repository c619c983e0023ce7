// hoist-locals: locals declared inside statement expressions (as in the common MAX macro) are
// hoisted like any other, also when the statement expression initializes another local (see
// precompiler-bugs.md, golden-1).
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

int step(int n) {
#pragma ccc_checkpoint force
  return n + 1;
}

#define MAX(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })

// CHECK-LABEL: int assigned(int n) { struct __c3_frame_assigned { struct __c3_frame h; int n; int m; int r; int _a; int _b; int {{__c3_t[0-9]+}}; } __c3_fr; {{.*}}
// CHECK-NEXT: __c3_fr.m = 3;
// CHECK-NEXT: __c3_fr.r = ({ __c3_fr._a = (__c3_fr.m); __c3_fr._b = (__c3_fr.n); __c3_fr._a > __c3_fr._b ? __c3_fr._a : __c3_fr._b; });
int assigned(int n) {
  int m = 3, r;
  r = MAX(m, n);
  return step(r);
}

// CHECK-LABEL: int initialized(int n) { struct __c3_frame_initialized {{.*}}
// CHECK-NEXT: __c3_fr.m = 3;
// CHECK-NEXT: __c3_fr.r = ({ __c3_fr.a = __c3_fr.m; __c3_fr.a + __c3_fr.n; });
// CHECK-NEXT: __c3_fr.s = ({ __c3_fr._a = (__c3_fr.r); __c3_fr._b = (__c3_fr.n); __c3_fr._a > __c3_fr._b ? __c3_fr._a : __c3_fr._b; });
int initialized(int n) {
  int m = 3;
  int r = ({ int a = m; a + n; });
  int s = MAX(r, n);
  return step(r + s);
}

int main(void) {
  printf("%d %d %d\n", assigned(1), assigned(8), initialized(2));
  return 0;
}
