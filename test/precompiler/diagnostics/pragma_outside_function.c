// A checkpoint pragma at file scope.
#pragma ccc_checkpoint
// CHECK: {{^.*[/]}}pragma_outside_function.c:[[@LINE-1]]:1: error: '#pragma ccc_checkpoint' outside a function body{{$}}
// CHECK-NEXT: {{^}}#pragma ccc_checkpoint{{$}}
// CHECK-NEXT: {{^}}^{{$}}
// CHECK-NEXT: {{^.*[/]}}pragma_outside_function.c:[[@LINE-4]]:1: note: hint: checkpoints are taken where the program runs: move the pragma into a function{{$}}
// CHECK-NEXT: 1 error generated.
void f(void) {
}
