// setjmp/longjmp in a function that can reach a checkpoint: a longjmp bypasses the frame chain.
#include <setjmp.h>
jmp_buf env;

void f(int n) {
  if (setjmp(env)) return;
  // CHECK: {{^.*[/]}}setjmp.c:[[@LINE-1]]:7: error: '_setjmp' in function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  if (_setjmp (env)) return;{{$}}
  // CHECK-NEXT: {{^}}      ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}setjmp.c:[[@LINE-4]]:7: note: hint: setjmp/longjmp across frames c3 must re-enter is not supported; return an error code through the callers instead{{$}}
#pragma ccc_checkpoint
  if (n) longjmp(env, 1);
  // CHECK-NEXT: {{^.*[/]}}setjmp.c:[[@LINE-1]]:10: error: 'longjmp' in function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  if (n) longjmp(env, 1);{{$}}
  // CHECK-NEXT: {{^}}         ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}setjmp.c:[[@LINE-4]]:10: note: hint: {{.*}}
  // CHECK-NEXT: 2 errors generated.
}
