// Reachability through function pointers with the whole program: once a function whose address
// is taken may reach a checkpoint, every call through a pointer may too.
//
// C3-VARIANT: CHECK --whole-program

void checkpoint_here(void) {
#pragma ccc_checkpoint
}

// CHECK-LABEL: int apply(int (*fn)(int), int n) { struct __c3_frame_apply {{.*}}
// CHECK-NEXT: { int [[T:__c3_t[0-9]+]]; {{.*}}__c3_fr.h.site = 1; __c3_L1: fn = __c3_fr.fn; n = __c3_fr.n; __c3_call_expected = (__c3_function)(fn); [[T]] = fn(n); { __c3_top = __c3_fr.h.prev; return [[T]]; } }
int apply(int (*fn)(int), int n) {
  return fn(n);
}

// Its address is taken below, and it reaches a checkpoint through checkpoint_here.
// CHECK-LABEL: int callback(int n) { struct __c3_frame_callback {{.*}}
int callback(int n) {
  checkpoint_here();
  return n + 1;
}

// CHECK-LABEL: int pure(int n) {
// CHECK-NEXT: return n - 1;
int pure(int n) {
  return n - 1;
}

// Naming a function outside a call takes its address; pure(n) stays a plain call (evaluated
// before apply, as an argument with side effects).
// CHECK-LABEL: int run(int n) { struct __c3_frame_run {{.*}}
// CHECK-NEXT: int [[A:__c3_t[0-9]+]]; int [[P:__c3_t[0-9]+]]; int [[B:__c3_t[0-9]+]]; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(apply); [[A]] = apply(callback, n); [[P]] = pure(n); {{.*}}__c3_fr.h.site = 2; __c3_L2: {{.*}}__c3_call_expected = (__c3_function)(apply); [[B]] = apply(pure, [[P]]); int r = [[A]] + [[B]];
int run(int n) {
  int r = apply(callback, n) + apply(pure, pure(n));
  return r;
}
