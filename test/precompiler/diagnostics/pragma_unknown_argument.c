// Only `force` may follow `#pragma ccc_checkpoint`.
void f(void) {
#pragma ccc_checkpoint sometimes
  // CHECK: {{^.*[/]}}pragma_unknown_argument.c:[[@LINE-1]]:24: error: unknown argument 'sometimes' to '#pragma ccc_checkpoint'{{$}}
  // CHECK-NEXT: {{^}}#pragma ccc_checkpoint sometimes{{$}}
  // CHECK-NEXT: {{^}}                       ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}pragma_unknown_argument.c:[[@LINE-4]]:24: note: hint: write '#pragma ccc_checkpoint' (checkpoint when due) or '#pragma ccc_checkpoint force' (always checkpoint){{$}}
  // CHECK-NEXT: 1 error generated.
}
