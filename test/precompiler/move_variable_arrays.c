// move-variable-arrays: VLAs, pointers to them, VLA parameters and alloca in functions that can
// reach a checkpoint live in the c3 heap, named through slots and casts with their sizes taken
// where the declaration stood; every return frees them (its value computed first). The run test
// restarts inside the loop that reallocates a VLA at every iteration.
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:5
// C3-RUN: site:4

#include <alloca.h>
#include <stdio.h>
#include <string.h>

// A parameter the function only reads: read once at entry into its slot, used as a value.
// CHECK-LABEL: static double sum(int n, int m, double a[n][m]) { {{.*}} __c3_v1_d0 = (m), __c3_v1 = (void *)a;
// CHECK: for (int j = 0; j < m; ++j) t += ((double (*)[__c3_v1_d0])__c3_v1)[i][j];
static double sum(int n, int m, double a[n][m]) {
  double t = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) t += a[i][j];
#pragma ccc_checkpoint force
  return t;
}

// A pointer to a VLA the function assigns is used through its slot's address.
// CHECK-LABEL: static int scaled(int n, int factor) { {{.*}}
// CHECK-NEXT: {{ +}}__c3_v2_d0 = (n), __c3_v2 = __c3_vla_alloc(__c3_v2, sizeof(int [__c3_v2_d0]));
// CHECK-NEXT: {{ +}}__c3_v3_d0 = (n), *(int (**)[__c3_v3_d0])&__c3_fr.__c3_v3 = (&(*(int (*)[__c3_v2_d0])__c3_v2));
// CHECK: {{ +}}(*(int (**)[__c3_v3_d0])&__c3_fr.__c3_v3)++;
// CHECK: {{ +}}{ int __c3_rv1 = ( (*(int (*)[__c3_v2_d0])__c3_v2)[n - 1] + (*(*(int (**)[__c3_v3_d0])&__c3_fr.__c3_v3))[0]); __c3_vla_free(__c3_v2); { __c3_top = __c3_fr.h.prev; return __c3_rv1; } }
// CHECK-NEXT: {{ +}}__c3_vla_free(__c3_v2); __c3_top = __c3_fr.h.prev; }
static int scaled(int n, int factor) {
  int v[n];
  int (*p)[n] = &v;
  for (int i = 0; i < n; ++i) v[i] = i * factor;
  p++;
  p--;
#pragma ccc_checkpoint force
  return v[n - 1] + (*p)[0];
}

// A VLA in a loop: reallocated at each iteration.
// CHECK-LABEL: int __c3_user_main(void) { {{.*}}
// CHECK: {{ +}}char *label = __c3_alloca(&__c3_fr.__c3_allocas, 16);
// CHECK: {{ +}}__c3_v4_d0 = (n), __c3_v4_d1 = (n + step), __c3_v4 = __c3_vla_alloc(__c3_v4, sizeof(double [__c3_v4_d0][__c3_v4_d1]));
int main(void) {
  int n = 4;
  char *label = alloca(16);
  strcpy(label, "grid");
  for (int step = 1; step <= 3; ++step) {
    double g[n][n + step];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n + step; ++j) g[i][j] = i + j * step;
    printf("%s %d: %zu bytes, sum %g, scaled %d\n", label, step, sizeof g, sum(n, n + step, g),
           scaled(n + step, step));
  }
  return 0;
}
