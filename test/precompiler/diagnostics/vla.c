// Variable-length arrays move to the c3 heap in functions that can reach a checkpoint
// (../move_variable_arrays.c), one declaration at a time; a variably modified typedef cannot
// move (its name would be in scope where a restart jumps).
void sink(int *);

void f(int n) {
  int k = n, a[n];
  // CHECK: {{^.*[/]}}vla.c:[[@LINE-1]]:14: error: variable-length array 'a' declared with other variables in function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  int k = n, a[n];{{$}}
  // CHECK-NEXT: {{^}}             ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}vla.c:[[@LINE-4]]:14: note: hint: declare 'a' in a declaration of its own{{$}}
  sink(a);
  sink(&k);
#pragma ccc_checkpoint
}

void g(int n) {
  typedef int row[n];
  // CHECK: {{^.*[/]}}vla.c:[[@LINE-1]]:15: error: variably modified type 'row' declared in function 'g', which can reach a checkpoint{{$}}
  // CHECK: note: hint: spell the array type where it is used instead of naming it{{$}}
  row r;
  // CHECK: error: variable 'r' has a type declared inside function 'g', which can reach a checkpoint{{$}}
  sink(r);
  f(n);
}
// CHECK: 3 errors generated.
