// A variadic function that can reach a checkpoint: its frame cannot be re-entered.
int sum(int n, ...) {
  // CHECK: {{^.*[/]}}variadic.c:[[@LINE-1]]:5: error: variadic function 'sum' can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}int sum(int n, ...) {{[{]}}{{$}}
  // CHECK-NEXT: {{^}}    ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}variadic.c:[[@LINE-4]]:5: note: hint: pass the extra arguments in an array or a struct instead of '...'{{$}}
  // CHECK-NEXT: 1 error generated.
#pragma ccc_checkpoint
  return n;
}

// Variadic functions that reach nothing are fine.
int count(int n, ...) {
  return n;
}
