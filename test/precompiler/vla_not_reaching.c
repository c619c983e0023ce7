// A variable-length array is fine in a function that cannot reach a checkpoint: the function is
// not instrumented, so its frame never has to be saved. (See diagnostics/vla.c for the error.)
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

// CHECK-LABEL: int sum_of_squares(int n) {
// CHECK-NEXT: int squares[n];
// CHECK-NEXT: int total = 0;
int sum_of_squares(int n) {
  int squares[n];
  int total = 0;
  for (int i = 0; i < n; i++) squares[i] = i * i;
  for (int i = 0; i < n; i++) total += squares[i];
  return total;
}

// CHECK-LABEL: int __c3_user_main(void) { struct __c3_frame_main {{.*}}
int main(void) {
  int total = sum_of_squares(5);
#pragma ccc_checkpoint force
  printf("%d %d\n", total, sum_of_squares(10));
  return 0;
}
