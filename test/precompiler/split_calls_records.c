// split-calls with struct-returning calls. A record with a const member cannot be assigned, so
// its value is stored by copying it from a temporary: `({ T __c3_v = value; memcpy(...); })`,
// both for locals and for the temporaries of split calls.
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:4

int printf(const char *, ...);

static int calls;
int step(int n) {
  if (++calls % 3 == 0) {
#pragma ccc_checkpoint force
  }
  return n + 1;
}

struct pair { int a, b; };
struct fixed { const int id; int value; };

// CHECK: struct pair make(int n) { struct __c3_frame_make { struct __c3_frame h; int n; struct pair p; } __c3_fr; {{.*}}
// CHECK-NEXT: int [[T:__c3_t[0-9]+]]; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); [[T]] = step(n); __c3_fr.p = (struct pair){n, [[T]]};
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return __c3_fr.p; }
struct pair make(int n) {
  struct pair p = {n, step(n)};
  return p;
}

// CHECK: struct fixed fix(int n) { struct __c3_frame_fix { struct __c3_frame h; int n; struct fixed f; } __c3_fr; {{.*}}
// CHECK-NEXT: int [[T:__c3_t[0-9]+]]; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(step); [[T]] = step(n); ({ struct fixed __c3_v = (struct fixed){n, [[T]]}; __builtin_memcpy(&__c3_fr.f, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: { __c3_top = __c3_fr.h.prev; return __c3_fr.f; }
struct fixed fix(int n) {
  struct fixed f = {n, step(n)};
  return f;
}

int sum(struct pair p) { return p.a + p.b; }

// CHECK-LABEL: int records(int n) { struct __c3_frame_records {{.*}}
// CHECK-NEXT: {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(make); __c3_fr.p = make(n);
// The site of a copying store is the whole statement expression.
// CHECK-NEXT: {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(fix); ({ struct fixed __c3_v = fix(n); __builtin_memcpy(&__c3_fr.f, &__c3_v, sizeof __c3_v); });
// CHECK-NEXT: {{.*}}__c3_fr.h.site = 3; __c3_L3: {{.*}}__c3_call_expected = (__c3_function)(make); __c3_fr.p = make(__c3_fr.p.b);
// CHECK-NEXT: {{.*}}__c3_fr.h.site = 4; __c3_L4: {{.*}}__c3_call_expected = (__c3_function)(make); make(n);
// CHECK-NEXT: ; ; ; if (n) { {{.*}}__c3_fr.h.site = 5; __c3_L5: {{.*}}__c3_call_expected = (__c3_function)(fix); ({ struct fixed __c3_v = fix(1); __builtin_memcpy(&__c3_fr.__c3_t1, &__c3_v, sizeof __c3_v); }); ({ struct fixed __c3_v = __c3_fr.__c3_t1; __builtin_memcpy(&__c3_fr.__c3_t3, &__c3_v, sizeof __c3_v); }); } else { {{.*}}__c3_fr.h.site = 6; __c3_L6: {{.*}}__c3_call_expected = (__c3_function)(fix); ({ struct fixed __c3_v = fix(2); __builtin_memcpy(&__c3_fr.__c3_t2, &__c3_v, sizeof __c3_v); }); ({ struct fixed __c3_v = __c3_fr.__c3_t2; __builtin_memcpy(&__c3_fr.__c3_t3, &__c3_v, sizeof __c3_v); }); } ({ struct fixed __c3_v = __c3_fr.__c3_t3; __builtin_memcpy(&__c3_fr.g, &__c3_v, sizeof __c3_v); });
// A record argument: the call is split out, the temporary passed by value.
// CHECK-NEXT: ; {{.*}}__c3_fr.h.site = 7; __c3_L7: {{.*}}__c3_call_expected = (__c3_function)(make); __c3_fr.__c3_t4 = make(n); int s = sum(__c3_fr.__c3_t4);
// Members of returned records.
// CHECK-NEXT: { ; ; {{.*}}__c3_fr.h.site = 8; __c3_L8: {{.*}}__c3_call_expected = (__c3_function)(make); __c3_fr.__c3_t5 = make(n); {{.*}}__c3_fr.h.site = 9; __c3_L9: {{.*}}__c3_call_expected = (__c3_function)(fix); ({ struct fixed __c3_v = fix(n); __builtin_memcpy(&__c3_fr.__c3_t6, &__c3_v, sizeof __c3_v); }); { __c3_top = __c3_fr.h.prev; return __c3_fr.p.a + __c3_fr.f.id + __c3_fr.g.value + s + __c3_fr.__c3_t5.b + __c3_fr.__c3_t6.id; } }
// CHECK-NEXT: __c3_top = __c3_fr.h.prev; }
int records(int n) {
  struct pair p = make(n);
  struct fixed f = fix(n);
  p = make(p.b);
  make(n);
  struct fixed g = n ? fix(1) : fix(2);
  int s = sum(make(n));
  return p.a + f.id + g.value + s + make(n).b + fix(n).id;
}

// The frame record holds const-member records without their const.
// CHECK-LABEL: int keep(struct fixed in) { struct __c3_frame_keep { struct __c3_frame h; struct fixed in; struct fixed copy; } __c3_fr; {{.*}} __builtin_memcpy(&__c3_fr.in, &in, sizeof __c3_fr.in);
// CHECK-NEXT: ({ struct fixed __c3_v = __c3_fr.in; __builtin_memcpy(&__c3_fr.copy, &__c3_v, sizeof __c3_v); });
int keep(struct fixed in) {
  struct fixed copy = in;
#pragma ccc_checkpoint
  return copy.id + copy.value;
}

int main(void) {
  printf("%d %d\n", records(1), records(0));
  struct fixed f = {5, 6};
  printf("keep %d\n", keep(f));
  printf("calls %d\n", calls);
  return 0;
}
