// A call inside a GNU statement expression c3 cannot re-enter. In a function that only might
// reach a checkpoint through it (the callee is in another file, or called through a pointer),
// the function is left uninstrumented like one holding any construct c3 cannot re-enter
// (vla_maybe_reaching.c), main included: a file-by-file build of ordinary C must work (MPICH's
// own tests wrap their datatype pool's calls in such macros). Where the callee surely reaches,
// it is an error (diagnostics/stmt_expr_call.c).
int elsewhere(int);
int local(int n) { return n * 2; }

#define TWICE(call) ({ int r_ = (call); r_ + r_; })

// CHECK: int wrapped(int n) {
// CHECK-NEXT: return ({ int r_ = (elsewhere(n)); r_ + r_; });
int wrapped(int n) {
  return TWICE(elsewhere(n));
}

// CHECK: int through_pointer(int (*f)(int), int n) {
// CHECK-NEXT: return ({ int r_ = (f(n)); r_ + r_; });
int through_pointer(int (*f)(int), int n) {
  return TWICE(f(n));
}

// Still instrumented: the call inside reaches nothing, the one that might reach is outside.
// CHECK: int outside(int n) { struct __c3_frame_outside {{.*}}
int outside(int n) {
  int k = TWICE(local(n));
  return elsewhere(k);
}

// main is renamed (rename_main_0.c) but not instrumented.
// CHECK: int __c3_user_main(void) {
// CHECK-NEXT: return ({ int r_ = (elsewhere(1)); r_ + r_; });
int main(void) {
  return TWICE(elsewhere(1));
}
