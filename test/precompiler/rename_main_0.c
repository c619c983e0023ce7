// rename-main, `int main(void)`: the user's main becomes __c3_user_main, and __c3_app_main (what
// the runtime calls on its fixed stack) calls it without arguments.
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

// CHECK-LABEL: int __c3_user_main(void) { struct __c3_frame_main {{.*}}
// CHECK: { __c3_top = __c3_fr.h.prev; return 3; }
// C99 gives main an implicit `return 0;`, the renamed main gets it spelled out.
// CHECK-NEXT: __c3_top = __c3_fr.h.prev; return 0; }
// CHECK-EMPTY:
// CHECK-NEXT: int __c3_app_main(int argc, char **argv, char **envp) { (void)argc; (void)argv; (void)envp; __c3_call_expected = (__c3_function)__c3_user_main; return __c3_user_main(); }
// CHECK-NOT: {{.*}}main({{.*}}
int main(void) {
  printf("before\n");
#pragma ccc_checkpoint force
  printf("after\n");
  return 3;
}
