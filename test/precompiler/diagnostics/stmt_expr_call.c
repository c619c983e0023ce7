// A call that reaches a checkpoint inside a GNU statement expression (one that only might reach
// leaves its function uninstrumented: ../stmt_expr_maybe_reaching.c).
int step(int n) {
#pragma ccc_checkpoint
  return n;
}

int f(int n) {
  int r = 1 + ({ int t = step(n); t * 2; });
  // CHECK: {{^.*[/]}}stmt_expr_call.c:[[@LINE-1]]:15: error: a call that can reach a checkpoint inside a statement expression{{$}}
  // CHECK-NEXT: {{^}}  int r = 1 + ({ int t = step(n); t * 2; });{{$}}
  // CHECK-NEXT: {{^}}              ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}stmt_expr_call.c:[[@LINE-4]]:15: note: hint: move the statements out of '({ ... })' into ordinary statements{{$}}
  // CHECK-NEXT: 1 error generated.
  return r;
}
