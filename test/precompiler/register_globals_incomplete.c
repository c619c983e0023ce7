// register-globals: a tentative definition with an incomplete array type, completed later in the
// file (or by the end of it), still defines the object and must be saved (see
// precompiler-bugs.md, golden-4). The run writes the array before the checkpoint and prints it
// after the restart.
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

int values[];
int values[4];
int lonely[];

// CHECK: static const struct __c3_global __c3_file_globals[] {{.*}}{(void *)&values, {{[^,]+}}, "values"}{{.*}}
// CHECK-SAME: {(void *)&lonely, {{[^,]+}}, "lonely"}{{.*}}
int main(void) {
  for (int i = 0; i < 4; i++) values[i] = i * i;
  lonely[0] = 7;
#pragma ccc_checkpoint force
  printf("%d %d %d\n", values[3], values[1], lonely[0]);
  return 0;
}
