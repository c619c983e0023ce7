// As the unbraced body of if/else/while/for the pragma would silently become the body.
void work(int);

void f(int n) {
  if (n)
#pragma ccc_checkpoint
  // CHECK: {{^.*[/]}}pragma_unbraced_body.c:[[@LINE-1]]:1: error: '#pragma ccc_checkpoint' cannot stand here (inside IfStmt){{$}}
  // CHECK-NEXT: {{^}}#pragma ccc_checkpoint{{$}}
  // CHECK-NEXT: {{^}}^{{$}}
  // CHECK-NEXT: {{^.*[/]}}pragma_unbraced_body.c:[[@LINE-4]]:1: note: hint: put the pragma in a block of its own, e.g. 'if (x) { #pragma ccc_checkpoint }' on separate lines{{$}}
    work(n);
  else
#pragma ccc_checkpoint force
    // CHECK-NEXT: {{^.*[/]}}pragma_unbraced_body.c:[[@LINE-1]]:1: error: '#pragma ccc_checkpoint' cannot stand here (inside IfStmt){{$}}
    // CHECK: note: hint:
    work(0);
  while (n--)
#pragma ccc_checkpoint
    // CHECK-NEXT: {{^.*[/]}}pragma_unbraced_body.c:[[@LINE-1]]:1: error: '#pragma ccc_checkpoint' cannot stand here (inside WhileStmt){{$}}
    // CHECK: note: hint:
    work(n);
  for (;;)
#pragma ccc_checkpoint
    // CHECK-NEXT: {{^.*[/]}}pragma_unbraced_body.c:[[@LINE-1]]:1: error: '#pragma ccc_checkpoint' cannot stand here (inside ForStmt){{$}}
    // CHECK: note: hint:
    break;
  // CHECK-NEXT: 4 errors generated.
}
