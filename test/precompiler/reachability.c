// Reachability decides which functions are instrumented: those that contain a checkpoint site or
// may call one that does. Alone (PERFILE), a file must assume that functions defined elsewhere
// and calls through pointers reach a checkpoint; with the whole program (WHOLE) c3 knows. Calls
// of functions defined nowhere it can see always count as reaching. Static functions are told
// apart per file: Inputs/reachability_other.c has its own local_site, without a checkpoint.
//
// C3-VARIANT: PERFILE
// C3-VARIANT: WHOLE --whole-program Inputs/reachability_other.c

int helper(int);  // defined in Inputs/reachability_other.c, reaches nothing
int unknown(int); // defined nowhere

// CHECK-LABEL: static int local_site(int n) { struct __c3_frame_local_site {{.*}}
static int local_site(int n) {
#pragma ccc_checkpoint
  return n;
}

// A function that calls nothing reaching stays untouched, and so does its caller.
// PERFILE-LABEL: int pure(int n) {
// PERFILE-NEXT: return n * 2;
// PERFILE-NEXT: }
// PERFILE-NEXT: int calls_pure(int n) {
// PERFILE-NEXT: return pure(n) + 1;
// PERFILE-NEXT: }
// WHOLE-LABEL: int pure(int n) {
// WHOLE-NEXT: return n * 2;
// WHOLE-NEXT: }
// WHOLE-NEXT: int calls_pure(int n) {
// WHOLE-NEXT: return pure(n) + 1;
// WHOLE-NEXT: }
int pure(int n) {
  return n * 2;
}
int calls_pure(int n) {
  return pure(n) + 1;
}

// PERFILE-LABEL: int calls_helper(int n) { struct __c3_frame_calls_helper {{.*}}
// PERFILE-NEXT: { int {{__c3_t[0-9]+}}; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(helper); {{__c3_t[0-9]+}} = helper(n); {{.*}}
// WHOLE-LABEL: int calls_helper(int n) {
// WHOLE-NEXT: return helper(n);
// WHOLE-NEXT: }
int calls_helper(int n) {
  return helper(n);
}

// PERFILE-LABEL: int calls_unknown(int n) { struct __c3_frame_calls_unknown {{.*}}
// WHOLE-LABEL: int calls_unknown(int n) { struct __c3_frame_calls_unknown {{.*}}
int calls_unknown(int n) {
  return unknown(n);
}

// PERFILE-LABEL: int calls_local(int n) { struct __c3_frame_calls_local {{.*}}
// WHOLE-LABEL: int calls_local(int n) { struct __c3_frame_calls_local {{.*}}
int calls_local(int n) {
  return local_site(n);
}

// Nothing whose address is taken reaches a checkpoint (pure is not local_site), so with the
// whole program calls through pointers reach nothing.
// PERFILE-LABEL: int indirect(int (*fp)(int), int n) { struct __c3_frame_indirect {{.*}}
// PERFILE-NEXT: { int {{__c3_t[0-9]+}}; {{.*}}__c3_fr.h.site = 1; __c3_L1: {{.*}}__c3_call_expected = (__c3_function)(fp); {{__c3_t[0-9]+}} = fp(n); {{.*}}
// PERFILE-LABEL: int table_user(int n) { struct __c3_frame_table_user {{.*}}
// WHOLE-LABEL: int indirect(int (*fp)(int), int n) {
// WHOLE-NEXT: return fp(n);
// WHOLE-NEXT: }
// WHOLE-NEXT: int table_user(int n) {
// WHOLE-NEXT: int (*fp)(int) = pure;
// WHOLE-NEXT: return indirect(fp, n);
// WHOLE-NEXT: }
int indirect(int (*fp)(int), int n) {
  return fp(n);
}
int table_user(int n) {
  int (*fp)(int) = pure;
  return indirect(fp, n);
}
