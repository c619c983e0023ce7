// Calls that can reach a checkpoint in a declaration of several variables are split into one
// declaration and assignment per declarator (../split_calls_declarators.c); an array or a braced
// initializer among them cannot be assigned that way.
int step(int);

int f(int n) {
  int a[2] = {1, 2}, b = step(n) + 1;
  // CHECK: {{^.*[/]}}several_declarators.c:[[@LINE-1]]:7: error: a call that can reach a checkpoint in a declaration of several variables, one of them ('a') an array, a braced or a static variable{{$}}
  // CHECK-NEXT: {{^}}  int a[2] = {1, 2}, b = step(n) + 1;{{$}}
  // CHECK-NEXT: {{^}}      ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}several_declarators.c:[[@LINE-4]]:7: note: hint: declare 'a' in a declaration of its own{{$}}
  // CHECK-NEXT: 1 error generated.
  return a[0] + b;
}

// Plain calls and larger initializers are fine.
int g(int n) {
  int c = step(n), d = step(c) + 1, e;
  e = c + d;
  return e;
}
