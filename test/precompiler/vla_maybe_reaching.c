// A function that only might reach a checkpoint (it calls a function of another file, which c3
// cannot see) and holds a construct c3 cannot re-enter (here '...') is left uninstrumented
// instead of rejected: a file-by-file build of ordinary C must work. A checkpoint beneath such a
// function would be refused at run time (its callees see they were not entered from a call site
// c3 can re-issue). A VLA is no such construct: it moves to the c3 heap.
void elsewhere(int *, int);
void report(const char *format, ...);

// CHECK: void smooth(int n) { struct __c3_frame_smooth {{.*}}
// CHECK-NEXT: __c3_v1_d0 = (n), __c3_v1 = __c3_vla_alloc(__c3_v1, sizeof(int [__c3_v1_d0]));
void smooth(int n) {
  int tmp[n];
  for (int i = 0; i < n; i++) tmp[i] = i;
  elsewhere(tmp, n);
}

// CHECK: void report(const char *format, ...) {
// CHECK-NEXT: elsewhere(0, 0);
void report(const char *format, ...) {
  elsewhere(0, 0);
  (void)format;
}

// Still instrumented: no such construct.
// CHECK: void plain(int n) { struct __c3_frame_plain {{.*}}
void plain(int n) {
  elsewhere(&n, 1);
}
