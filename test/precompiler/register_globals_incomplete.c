// register-globals: a tentative definition with an incomplete array type, completed later in the
// file, still defines the object and is saved with its final size (see precompiler-bugs.md,
// golden-4). The run writes the array before the checkpoint and prints it after the restart.
// (register_globals_one_element.c: an array never completed.)
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

int values[];
int values[4];

// CHECK: static const struct __c3_global __c3_file_globals[] __attribute__((section("c3_globals"), used, aligned(8))) = {{[{][{]}}(void *)&values, 16ul, "values"}};
int main(void) {
  for (int i = 0; i < 4; i++) values[i] = i * i;
#pragma ccc_checkpoint force
  printf("%d %d\n", values[3], values[1]);
  return 0;
}
