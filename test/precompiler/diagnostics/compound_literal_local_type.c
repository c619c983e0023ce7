// A compound literal goes into the frame record like a local (../hoist_locals_compound_literal.c),
// so its type must not be declared inside the function either: a clang-style c3 error, not a
// failure of a later stage (see precompiler-bugs.md, golden-9).
void step(int);

void g(void) {
  enum { N = 2 };
  struct local { int a, b; };
  int v = ((struct local){N, 3}).b;
  // CHECK: {{^.*[/]}}compound_literal_local_type.c:[[@LINE-1]]:{{[0-9]+}}: error: {{.*}}type declared inside function 'g', which can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  int v = ((struct local){N, 3}).b;{{$}}
  // CHECK: {{^.*[/]}}compound_literal_local_type.c:[[@LINE-3]]:{{[0-9]+}}: note: hint: move the declaration of 'local' to file scope{{$}}
  // CHECK-NEXT: 1 error generated.
  step(v);
#pragma ccc_checkpoint
}
