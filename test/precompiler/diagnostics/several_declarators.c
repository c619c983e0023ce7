// Calls that can reach a checkpoint in a declaration of several variables: plain calls become one
// call site per declarator, in order; a call inside a larger initializer would have to run
// before the declarators in front of it, so it is rejected.
int step(int);

int f(int n) {
  int a = 1, b = step(n) + 1;
  // CHECK: {{^.*[/]}}several_declarators.c:[[@LINE-1]]:14: error: a call that can reach a checkpoint inside the initializer of 'b' in a declaration of several variables{{$}}
  // CHECK-NEXT: {{^}}  int a = 1, b = step(n) + 1;{{$}}
  // CHECK-NEXT: {{^}}             ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}several_declarators.c:[[@LINE-4]]:14: note: hint: declare 'b' in a declaration of its own{{$}}
  // CHECK-NEXT: 1 error generated.
  return a + b;
}

// Plain calls are fine.
int g(int n) {
  int c = step(n), d = step(c), e;
  e = c + d;
  return e;
}
