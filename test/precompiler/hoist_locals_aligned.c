// hoist-locals keeps the alignment a local asks for (_Alignas, aligned attribute) on its
// frame-record member (see precompiler-bugs.md, golden-5). The run prints how many buffers are
// aligned, which must be all of them.
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

// CHECK-LABEL: int __c3_user_main(void) { struct __c3_frame_main { struct __c3_frame h; char buf[64] __attribute__((aligned(64))); int words[8] __attribute__((aligned(32))); int aligned; } __c3_fr; {{.*}}
int main(void) {
  char pad = 1;
  _Alignas(64) char buf[64];
  __attribute__((aligned(32))) int words[8];
  int aligned = ((unsigned long)buf % 64 == 0) + ((unsigned long)words % 32 == 0);
  buf[0] = pad;
  words[0] = buf[0];
#pragma ccc_checkpoint force
  printf("aligned %d of 2, %d\n", aligned, words[0]);
  return 0;
}
