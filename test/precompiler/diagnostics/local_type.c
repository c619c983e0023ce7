// Types declared inside a function that can reach a checkpoint: the frame record, declared first
// in the body, could not name them.
void f(int n) {
  struct local { int a; } l = {n};
  // CHECK: {{^.*[/]}}local_type.c:[[@LINE-1]]:10: error: local type 'local' declared in function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  struct local { int a; } l = {n};{{$}}
  // CHECK-NEXT: {{^}}         ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}local_type.c:[[@LINE-4]]:10: note: hint: move the declaration to file scope{{$}}
  typedef int count_t;
  // CHECK-NEXT: {{^.*[/]}}local_type.c:[[@LINE-1]]:15: error: local typedef 'count_t' declared in function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  typedef int count_t;{{$}}
  // CHECK-NEXT: {{^}}              ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}local_type.c:[[@LINE-4]]:15: note: hint: move the declaration to file scope{{$}}
  enum { LIMIT = 3 };
  // CHECK-NEXT: {{^.*[/]}}local_type.c:[[@LINE-1]]:3: error: local type declared in function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  enum { LIMIT = 3 };{{$}}
  // CHECK-NEXT: {{^}}  ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}local_type.c:[[@LINE-4]]:3: note: hint: move the declaration to file scope{{$}}
  // CHECK-NEXT: 3 errors generated.
  count_t c = l.a + LIMIT;
#pragma ccc_checkpoint
  (void)c;
}

// In a function that reaches no checkpoint they are fine.
int g(int n) {
  struct pair { int a, b; } p = {n, n};
  return p.a + p.b;
}
