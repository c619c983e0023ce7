// Declarations of several variables whose initializers hold calls that can reach a checkpoint:
// one declaration and one assignment per declarator, in order, each initializer lowered in its
// own scope (m reads the outer n, declared before the inner one).
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:3

int printf(const char *, ...);

static int calls;

int size_of(int x) {
  calls++;
#pragma ccc_checkpoint force
  return x + 2;
}

int main(void) {
  int n = 3;
  int total = 0;
  {
    int m = n, k = size_of(m) < 5 ? size_of(m) : 5, n = k * 2;
    // CHECK: {{.*}}int m; m = n; int k; {{.*}}[[T:__c3_t[0-9]+]] = size_of(m); if ([[T]] < 5) {{.*}} k = {{__c3_t[0-9]+}}; int n; n = k * 2;
    total += m + k + n;
  }
  for (int i = 0, shown = size_of(1) < 4 ? size_of(2) : 1; i < shown; i++) total += i;
  printf("total %d calls %d\n", total, calls);
  return 0;
}
