// A variable-length array in a function that can reach a checkpoint: its frame record needs a
// fixed layout. (../vla_not_reaching.c: accepted where no checkpoint is reached.)
void sink(int *);

void f(int n) {
  int a[n];
  // CHECK: {{^.*[/]}}vla.c:[[@LINE-1]]:7: error: variable-length array 'a' in function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  int a[n];{{$}}
  // CHECK-NEXT: {{^}}      ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}vla.c:[[@LINE-4]]:7: note: hint: allocate it with malloc() and free() it, so the frame has a fixed layout{{$}}
  sink(a);
#pragma ccc_checkpoint
}

// A pointer to a variably modified type is as bad (g reaches the pragma through f).
void g(int n, int (*m)[n]) {
  // CHECK: {{^.*[/]}}vla.c:[[@LINE-1]]:{{[0-9]+}}: error: variable-length array 'm' in function 'g', which can reach a checkpoint{{$}}
  sink(m[0]);
  f(n);
}
// CHECK: 2 errors generated.
