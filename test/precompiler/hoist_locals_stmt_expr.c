// hoist-locals: locals declared inside statement expressions (as in the common MAX macro) are
// treated like any other: scalars stay locals (they are in scope at no site), one whose address
// is taken moves into the record, also when the statement expression initializes another local
// (see precompiler-bugs.md, golden-1).
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

int step(int n) {
#pragma ccc_checkpoint force
  return n + 1;
}

#define MAX(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })

// CHECK-LABEL: int assigned(int n) { struct __c3_frame_assigned { struct __c3_frame h; int r; } __c3_fr; {{.*}}
// CHECK-NEXT: int m = 3, r;
// CHECK-NEXT: r = ({ __typeof__(m) _a = (m); __typeof__(n) _b = (n); _a > _b ? _a : _b; });
int assigned(int n) {
  int m = 3, r;
  r = MAX(m, n);
  return step(r);
}

// CHECK-LABEL: int initialized(int n) { struct __c3_frame_initialized { struct __c3_frame h; int r; int a; int s; } __c3_fr; {{.*}}
// CHECK-NEXT: int m = 3;
// CHECK-NEXT: int r = ({ __c3_fr.a = m; int *p = &__c3_fr.a; *p + n; });
// CHECK-NEXT: int s = ({ __typeof__(r) _a = (r); __typeof__(n) _b = (n); _a > _b ? _a : _b; });
int initialized(int n) {
  int m = 3;
  int r = ({ int a = m; int *p = &a; *p + n; });
  int s = MAX(r, n);
  return step(r + s);
}

int main(void) {
  printf("%d %d %d\n", assigned(1), assigned(8), initialized(2));
  return 0;
}
