// A variable whose type is declared inside a function that can reach a checkpoint: the frame
// record, declared first in the body, cannot name the type. Local types no variable of the
// frame needs (an enum for constants, a struct only measured) are fine.
void f(int n) {
  struct local { int a; } l = {n};
  // CHECK: {{^.*[/]}}local_type.c:[[@LINE-1]]:27: error: variable 'l' has a type declared inside function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  struct local { int a; } l = {n};{{$}}
  // CHECK-NEXT: {{^}}                          ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}local_type.c:[[@LINE-4]]:27: note: hint: move the declaration of 'local' to file scope{{$}}
  typedef int count_t;
  enum { LIMIT = 3 };
  struct measured { char bytes[8]; };
  count_t c = l.a + LIMIT + (int)sizeof(struct measured);
  // CHECK-NEXT: {{^.*[/]}}local_type.c:[[@LINE-1]]:11: error: variable 'c' has a type declared inside function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  count_t c = l.a + LIMIT + (int)sizeof(struct measured);{{$}}
  // CHECK-NEXT: {{^}}          ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}local_type.c:[[@LINE-4]]:11: note: hint: move the declaration of 'count_t' to file scope{{$}}
  // CHECK-NEXT: 2 errors generated.
#pragma ccc_checkpoint
  (void)c;
}

// In a function that reaches no checkpoint they are fine.
int g(int n) {
  struct pair { int a, b; } p = {n, n};
  return p.a + p.b;
}
