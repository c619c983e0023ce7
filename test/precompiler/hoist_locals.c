// hoist-locals: the parameters and locals of an instrumented function move into one frame
// record declared first in the body. Shadowed names get distinct members, declarations become
// assignments (arrays and braced initializers are copied from compound literals, const objects
// by a copying store), parameters are copied in at entry, statics stay where they are.
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

// Members in declaration order, parameters first; a second `x`, `n` and a local named like the
// header member `h` get numbered names. A const parameter is copied in by memcpy.
// CHECK-LABEL: int shadow(int n, const int k) { struct __c3_frame_shadow { struct __c3_frame h; int n; int k; int x; int x_2; int n_2; int h_2; } __c3_fr; {{.*}} __c3_fr.n = n; __builtin_memcpy(&__c3_fr.k, &k, sizeof __c3_fr.k);
// CHECK-NEXT: __c3_fr.x = __c3_fr.n;
// CHECK-NEXT: {
// CHECK-NEXT: __c3_fr.h.site = 1; __c3_L1: __c3_call_expected = (__c3_function)(step); __c3_fr.x_2 = step(__c3_fr.k);
// CHECK-NEXT: __c3_fr.n += __c3_fr.x_2;
// CHECK-NEXT: }
// CHECK-NEXT: for (__c3_fr.n_2 = 0; __c3_fr.n_2 < 2; __c3_fr.n_2++) __c3_fr.x += __c3_fr.n_2;
// CHECK-NEXT: __c3_fr.h_2 = 3;
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return __c3_fr.x + __c3_fr.n + __c3_fr.h_2; }
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

// CHECK-LABEL: int initializers(int n) { struct __c3_frame_initializers { struct __c3_frame h; int n; int a[3]; int m[2][2]; char s[3]; char t[8]; const char *p; int z; pair_t q; int c; int ca[2]; pair_t cq; struct fixed f; int *cp; int (*fp)(int); int u; int __c3_t1; } __c3_fr; {{.*}}
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.a, &(int[3]){1, 2, 3}, sizeof __c3_fr.a);
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.m, &(int[2][2]){{[{][{]}}1, 2}, {3, 4}}, sizeof __c3_fr.m);
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.s, &(char[3]){"hi"}, sizeof __c3_fr.s);
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.t, &(char[8]){"there"}, sizeof __c3_fr.t);
// CHECK-NEXT: __c3_fr.p = "ptr";
// CHECK-NEXT: __c3_fr.z = (int){5};
// CHECK-NEXT: __c3_fr.q = (pair_t){.b = 2};
// CHECK-NEXT: ({ int __c3_v = __c3_fr.n * 2; __builtin_memcpy(&__c3_fr.c, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.ca, &(int[2]){__c3_fr.c, 7}, sizeof __c3_fr.ca);
// CHECK-NEXT: ({ pair_t __c3_v = (pair_t){1, 2}; __builtin_memcpy(&__c3_fr.cq, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: ({ struct fixed __c3_v = (struct fixed){1, 2}; __builtin_memcpy(&__c3_fr.f, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: ({ int *__c3_v = &__c3_fr.a[1]; __builtin_memcpy(&__c3_fr.cp, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: static int visits; static const struct __c3_global __c3_static_1 {{.*}}
// CHECK-NEXT: __c3_fr.fp = step;
// A declaration without initializer leaves an empty statement.
// CHECK-NEXT: ;
// CHECK-NEXT: __c3_fr.u = sizeof __c3_fr.u;
// CHECK-NEXT: visits++;
// CHECK-NEXT: __c3_fr.h.site = 1; __c3_L1: __c3_call_expected = (__c3_function)(step); step(__c3_fr.n);
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

// Several declarators become one comma expression, also as a for-init.
// CHECK-LABEL: int declarators(int n) { struct __c3_frame_declarators { struct __c3_frame h; int n; int r; int e; int w; int *ptr; int i; int j; } __c3_fr; {{.*}}
// CHECK-NEXT: __c3_fr.r = 0; __c3_fr.w = 2; __c3_fr.ptr = &__c3_fr.r;
// CHECK-NEXT: for (__c3_fr.i = 0, __c3_fr.j = __c3_fr.n; __c3_fr.i < __c3_fr.j; __c3_fr.i++, __c3_fr.j--) *__c3_fr.ptr += __c3_fr.i * __c3_fr.j + __c3_fr.w;
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
