// register-globals: an array tentatively defined with an incomplete type and never completed has
// one element (C11 6.9.2); it is saved with that size (see precompiler-bugs.md, golden-4).
// Clang warns about such a definition with no flag to turn just that off, hence -Wno-error.
//
// C3-RUN: after-commit:1
// C3-CFLAGS: -Wno-error

int printf(const char *, ...);

int lonely[];

// CHECK: static const struct __c3_global __c3_file_globals[] __attribute__((section("c3_globals"), used, aligned(8))) = {{[{][{]}}(void *)&lonely, 4ul, "lonely"}};
int main(void) {
  lonely[0] = 7;
#pragma ccc_checkpoint force
  printf("%d\n", lonely[0]);
  return 0;
}
