// hoist-locals, register locals: a scalar whose address is never taken stays a local, saved into
// the record before a site only if it may be used after it (later in the text, or anywhere in a
// loop around the site), and loaded back after the site's label. The run kills and restarts the
// program inside each function, so a value that was not saved when it should have been shows up
// in the output.
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:3
// C3-RUN: after-commit:4

int printf(const char *, ...);

static int calls;
int step(int n) {
  if (++calls % 2 == 0) {
#pragma ccc_checkpoint force
  }
  return n + 1;
}

// scale is read only before the site, but again in the next iteration: saved. The loop without a
// site stays as written, its locals untouched.
// CHECK-LABEL: int loop_carried(int n) { struct __c3_frame_loop_carried { struct __c3_frame h; int n; int acc; int scale; int i; } __c3_fr; {{.*}}
// CHECK-NEXT: int acc = 0, scale = n % 3 + 2;
// CHECK-NEXT: for (int j = 0; j < n; j++) acc ^= j * scale;
// CHECK-NEXT: for (int i = 0; i < n; i++) {
// CHECK-NEXT: acc += scale * i;
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.n, &n, sizeof __c3_fr.n); __builtin_memcpy(&__c3_fr.acc, &acc, sizeof __c3_fr.acc); __builtin_memcpy(&__c3_fr.scale, &scale, sizeof __c3_fr.scale); __builtin_memcpy(&__c3_fr.i, &i, sizeof __c3_fr.i); __c3_fr.h.site = 1; __c3_L1: n = __c3_fr.n; acc = __c3_fr.acc; scale = __c3_fr.scale; i = __c3_fr.i; __c3_call_expected = (__c3_function)(step); step(i);
int loop_carried(int n) {
  int acc = 0, scale = n % 3 + 2;
  for (int j = 0; j < n; j++) acc ^= j * scale;
  for (int i = 0; i < n; i++) {
    acc += scale * i;
    step(i);
  }
  return acc;
}

// n is not used after the site: not saved. A const local loses its const, also through
// typeof (copy); one named in typeof keeps its type and lives in the record (typed), as do
// volatile and address-taken ones. `register` ones are saved by assignment. An uninitialized one
// (late) is saved by memcpy, which draws no warning (the compile test uses -Werror).
// CHECK-LABEL: int kinds(int n) { struct __c3_frame_kinds { struct __c3_frame h; int bound; int typed; int copy; volatile int shared; int addressed; int *p; int fast; int late; int k; int fresh; } __c3_fr; {{.*}}
// CHECK-NEXT: int bound = n * 2;
// CHECK-NEXT: ({ int __c3_v = n + 1; __builtin_memcpy(&__c3_fr.typed, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: int copy = __c3_fr.typed;
// CHECK-NEXT: __c3_fr.shared = 3;
// CHECK-NEXT: __c3_fr.addressed = 4;
// CHECK-NEXT: int *p = &__c3_fr.addressed;
// CHECK-NEXT: register int fast = 5;
// CHECK-NEXT: int late;
// CHECK-NEXT: for (int k = 0; k < 2; k++) {
// CHECK-NEXT: int fresh = k * bound;
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.bound, &bound, sizeof __c3_fr.bound); __builtin_memcpy(&__c3_fr.copy, &copy, sizeof __c3_fr.copy); __builtin_memcpy(&__c3_fr.p, &p, sizeof __c3_fr.p); __c3_fr.fast = fast; __builtin_memcpy(&__c3_fr.late, &late, sizeof __c3_fr.late); __builtin_memcpy(&__c3_fr.k, &k, sizeof __c3_fr.k); __builtin_memcpy(&__c3_fr.fresh, &fresh, sizeof __c3_fr.fresh); __c3_fr.h.site = 1; __c3_L1: bound = __c3_fr.bound; copy = __c3_fr.copy; p = __c3_fr.p; fast = __c3_fr.fast; late = __c3_fr.late; k = __c3_fr.k; fresh = __c3_fr.fresh; __c3_call_expected = (__c3_function)(step); step(fresh);
int kinds(int n) {
  const int bound = n * 2;
  const int typed = n + 1;
  __typeof__(typed) copy = typed;
  volatile int shared = 3;
  int addressed = 4;
  int *p = &addressed;
  register int fast = 5;
  int late;
  for (int k = 0; k < 2; k++) {
    int fresh = k * bound;
    step(fresh);
    late = fresh + k;
  }
  return bound + typed + copy + shared + *p + fast + late;
}

// Shadowing: where a site cannot name the outer `v` (the inner one hides it), the outer one lives
// in the record; the inner one stays a local. n is only assigned by the site: not saved.
// CHECK-LABEL: int shadows(int n) { struct __c3_frame_shadows { struct __c3_frame h; int v; int v_2; } __c3_fr; {{.*}}
// CHECK-NEXT: __c3_fr.v = n;
// CHECK-NEXT: {
// CHECK-NEXT: int v = n * 10;
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.v_2, &v, sizeof __c3_fr.v_2); __c3_fr.h.site = 1; __c3_L1: v = __c3_fr.v_2; __c3_call_expected = (__c3_function)(step); n = step(v);
int shadows(int n) {
  int v = n;
  {
    int v = n * 10;
    n = step(v);
  }
  return v + n;
}

int main(void) {
  printf("loop_carried %d\n", loop_carried(5));
  printf("kinds %d\n", kinds(3));
  printf("shadows %d\n", shadows(4));
  printf("calls %d\n", calls);
  return 0;
}
