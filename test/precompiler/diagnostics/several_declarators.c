// A call that can reach a checkpoint in a declaration of several variables.
int step(int);

int f(int n) {
  int a = 1, b = step(n);
  // CHECK: {{^.*[/]}}several_declarators.c:[[@LINE-1]]:14: error: a call that can reach a checkpoint in a declaration of several variables{{$}}
  // CHECK-NEXT: {{^}}  int a = 1, b = step(n);{{$}}
  // CHECK-NEXT: {{^}}             ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}several_declarators.c:[[@LINE-4]]:14: note: hint: declare 'b' in a declaration of its own{{$}}
  int c = step(a), d;
  // CHECK-NEXT: {{^.*[/]}}several_declarators.c:[[@LINE-1]]:7: error: a call that can reach a checkpoint in a declaration of several variables{{$}}
  // CHECK-NEXT: {{^}}  int c = step(a), d;{{$}}
  // CHECK-NEXT: {{^}}      ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}several_declarators.c:[[@LINE-4]]:7: note: hint: declare 'c' in a declaration of its own{{$}}
  // CHECK-NEXT: 2 errors generated.
  return a + b + c + d;
}
