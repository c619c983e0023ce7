// alloca() in a function that can reach a checkpoint: the frame would not have a fixed layout.
// The caret line shows the preprocessed text (alloca is a macro for __builtin_alloca).
#include <alloca.h>
void sink(void *);

void f(unsigned n) {
  sink(alloca(n));
  // CHECK: {{^.*[/]}}alloca.c:[[@LINE-1]]:8: error: alloca() in function 'f', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  sink(__builtin_alloca (n));{{$}}
  // CHECK-NEXT: {{^}}       ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}alloca.c:[[@LINE-4]]:8: note: hint: use malloc() and free(), so the frame has a fixed layout{{$}}
  // CHECK-NEXT: 1 error generated.
#pragma ccc_checkpoint
}
