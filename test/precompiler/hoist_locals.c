// hoist-locals: scalars whose address is never taken stay locals ("register locals"), saved
// into the frame record before each call site and loaded back after its label; every other
// parameter and local moves into the record declared first in the body. Record members get
// distinct names, declarations of record variables become assignments (arrays and braced
// initializers are copied from compound literals, const objects by a copying store), record
// parameters are copied in at entry, a const register local loses its const, statics stay.
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:2

int printf(const char *, ...);

static int calls;
int step(int n) {
  if (++calls % 2 == 0) {
#pragma ccc_checkpoint force
  }
  return n + 1;
}

typedef struct { int a, b; } pair_t;
struct fixed { const int id; int v; };

// The outer x is shadowed at the site (by the inner x, which the site declares), so it lives in
// the record, as does the const parameter k (copied in by memcpy). n and the inner x stay locals:
// n is saved and reloaded around the call, the inner x is declared before its site.
// CHECK-LABEL: int shadow(int n, const int k) { struct __c3_frame_shadow { struct __c3_frame h; int n; int k; int x; } __c3_fr; {{.*}} __builtin_memcpy(&__c3_fr.k, &k, sizeof __c3_fr.k);
// CHECK-NEXT: __c3_fr.x = n;
// CHECK-NEXT: {
// CHECK-NEXT: int x; __builtin_memcpy(&__c3_fr.n, &n, sizeof __c3_fr.n); __c3_fr.h.site = 1; __c3_L1: n = __c3_fr.n; __c3_call_expected = (__c3_function)(step); x = step(__c3_fr.k);
// CHECK-NEXT: n += x;
// CHECK-NEXT: }
// CHECK-NEXT: for (int n = 0; n < 2; n++) __c3_fr.x += n;
// CHECK-NEXT: int h = 3;
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return __c3_fr.x + n + h; }
int shadow(int n, const int k) {
  int x = n;
  {
    int x = step(k);
    n += x;
  }
  for (int n = 0; n < 2; n++) x += n;
  int h = 3;
  return x + n + h;
}

// Only scalars in scope at a site get members; `const int c` and `int *const cp` become plain
// locals; a declaration without initializer of a record variable leaves an empty statement.
// CHECK-LABEL: int initializers(int n) { struct __c3_frame_initializers { struct __c3_frame h; int n; int a[3]; int m[2][2]; char s[3]; char t[8]; const char *p; int z; pair_t q; int c; int ca[2]; pair_t cq; struct fixed f; int *cp; int (*fp)(int); int u; } __c3_fr; {{.*}}
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.a, &(int[3]){1, 2, 3}, sizeof __c3_fr.a);
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.m, &(int[2][2]){{[{][{]}}1, 2}, {3, 4}}, sizeof __c3_fr.m);
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.s, &(char[3]){"hi"}, sizeof __c3_fr.s);
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.t, &(char[8]){"there"}, sizeof __c3_fr.t);
// CHECK-NEXT: const char *p = "ptr";
// CHECK-NEXT: int z = {5};
// CHECK-NEXT: __c3_fr.q = (pair_t){.b = 2};
// CHECK-NEXT: int c = n * 2;
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.ca, &(int[2]){c, 7}, sizeof __c3_fr.ca);
// CHECK-NEXT: ({ pair_t __c3_v = (pair_t){1, 2}; __builtin_memcpy(&__c3_fr.cq, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: ({ struct fixed __c3_v = (struct fixed){1, 2}; __builtin_memcpy(&__c3_fr.f, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: int *cp = &__c3_fr.a[1];
// CHECK-NEXT: static int visits; static const struct __c3_global __c3_static_1 {{.*}}
// CHECK-NEXT: int (*fp)(int) = step;
// CHECK-NEXT: int u;
// CHECK-NEXT: u = sizeof u;
// CHECK-NEXT: visits++;
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.n, &n, sizeof __c3_fr.n); __builtin_memcpy(&__c3_fr.p, &p, sizeof __c3_fr.p); __builtin_memcpy(&__c3_fr.z, &z, sizeof __c3_fr.z); __builtin_memcpy(&__c3_fr.c, &c, sizeof __c3_fr.c); __builtin_memcpy(&__c3_fr.cp, &cp, sizeof __c3_fr.cp); __builtin_memcpy(&__c3_fr.fp, &fp, sizeof __c3_fr.fp); __builtin_memcpy(&__c3_fr.u, &u, sizeof __c3_fr.u); __c3_fr.h.site = 1; __c3_L1: n = __c3_fr.n; p = __c3_fr.p; z = __c3_fr.z; c = __c3_fr.c; cp = __c3_fr.cp; fp = __c3_fr.fp; u = __c3_fr.u; __c3_call_expected = (__c3_function)(step); step(n);
int initializers(int n) {
  int a[3] = {1, 2, 3};
  int m[2][2] = {{1, 2}, {3, 4}};
  char s[] = "hi";
  char t[8] = "there";
  const char *p = "ptr";
  int z = {5};
  pair_t q = {.b = 2};
  const int c = n * 2;
  const int ca[2] = {c, 7};
  const pair_t cq = {1, 2};
  struct fixed f = {1, 2};
  int *const cp = &a[1];
  static int visits;
  int (*fp)(int) = step;
  int u;
  u = sizeof u;
  visits++;
  step(n);
  return a[n] + m[1][1] + s[0] + t[1] + p[0] + z + q.b + c + ca[1] + cq.a + f.id + *cp + fp(0) +
         visits + u;
}

// A declaration with a record variable becomes one statement per declarator; a for-init of
// register locals, and the loop that uses them without a site, stay as written. Only e is used
// after the site: n, w and ptr are neither saved nor given members.
// CHECK-LABEL: int declarators(int n) { struct __c3_frame_declarators { struct __c3_frame h; int r; int e; } __c3_fr; {{.*}}
// CHECK-NEXT: __c3_fr.r = 0; int e; int w = 2; int *ptr = &__c3_fr.r;
// CHECK-NEXT: for (int i = 0, j = n; i < j; i++, j--) *ptr += i * j + w;
// CHECK-NEXT: e = __c3_fr.r;
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.e, &e, sizeof __c3_fr.e); __c3_fr.h.site = 1; __c3_L1: e = __c3_fr.e; __c3_checkpoint_site(0, "hoist_locals.c:[[@LINE+5]]");
int declarators(int n) {
  int r = 0, e, w = 2, *ptr = &r;
  for (int i = 0, j = n; i < j; i++, j--) *ptr += i * j + w;
  e = r;
#pragma ccc_checkpoint
  return e;
}

// A function that reaches no checkpoint keeps its locals.
// CHECK-LABEL: int plain(int n) {
// CHECK-NEXT: int a[2] = {n, n};
// CHECK-NEXT: return a[0] + a[1];
int plain(int n) {
  int a[2] = {n, n};
  return a[0] + a[1];
}

int main(void) {
  printf("shadow %d\n", shadow(1, 2));
  printf("initializers %d %d\n", initializers(0), initializers(2));
  printf("declarators %d\n", declarators(5));
  printf("plain %d\n", plain(4));
  printf("calls %d\n", calls);
  return 0;
}
