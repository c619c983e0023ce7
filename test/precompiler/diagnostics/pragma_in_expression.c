// A pragma line in the middle of an expression.
int f(int n) {
  int x = n +
#pragma ccc_checkpoint
  // CHECK: {{^.*[/]}}pragma_in_expression.c:[[@LINE-1]]:1: error: '#pragma ccc_checkpoint' cannot stand here (inside BinaryOperator){{$}}
  // CHECK: 1 error generated.
          2;
  return x;
}
