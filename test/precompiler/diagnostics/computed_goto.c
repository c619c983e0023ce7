// Computed goto (labels as values) in a function that can reach a checkpoint.
int f(int n) {
  static void *targets[] = {&&even, &&odd};
  goto *targets[n & 1];
  // CHECK: {{^.*[/]}}computed_goto.c:[[@LINE-1]]:3: error: computed goto in a function that can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  goto *targets[n & 1];{{$}}
  // CHECK-NEXT: {{^}}  ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}computed_goto.c:[[@LINE-4]]:3: note: hint: use a switch over an integer state instead of label addresses{{$}}
  // CHECK-NEXT: 1 error generated.
even:
  n /= 2;
odd:
#pragma ccc_checkpoint
  return n;
}
