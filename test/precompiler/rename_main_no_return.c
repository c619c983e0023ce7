// rename-main: main may end without a return statement (C99: it returns 0). The renamed main
// must still return 0 (see precompiler-bugs.md, golden-2); the run test checks the exit status.
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

// CHECK-LABEL: int __c3_user_main(void) { struct __c3_frame_main {{.*}}
// CHECK-NEXT: printf("before\n");
// CHECK-NEXT: __c3_fr.h.site = 1; __c3_L1: __c3_checkpoint_site(1, "rename_main_no_return.c:[[@LINE+5]]");
// CHECK-NEXT: printf("after\n");
// CHECK-NEXT: {{.*}}return 0;{{.*}}
int main(void) {
  printf("before\n");
#pragma ccc_checkpoint force
  printf("after\n");
}
