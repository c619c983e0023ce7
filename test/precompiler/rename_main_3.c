// rename-main, `int main(int argc, char *argv[], char *envp[])`: the wrapper passes all three.
// The parameters are register locals like any other (their members adjusted to pointers): argc
// and argv are saved at the site, envp is not (it is not used after it).
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

// CHECK-LABEL: int __c3_user_main(int argc, char *argv[], char *envp[]) { struct __c3_frame_main { struct __c3_frame h; int argc; char **argv; int variables; } __c3_fr; {{.*}}
// CHECK-NEXT: int variables = 0;
// CHECK-NEXT: while (envp[variables]) variables++;
// CHECK-NEXT: __builtin_memcpy(&__c3_fr.argc, &argc, sizeof __c3_fr.argc); __builtin_memcpy(&__c3_fr.argv, &argv, sizeof __c3_fr.argv); {{.*}} __c3_L1: argc = __c3_fr.argc; argv = __c3_fr.argv; variables = __c3_fr.variables; {{.*}}
// CHECK: int __c3_app_main(int argc, char **argv, char **envp) { (void)argc; (void)argv; (void)envp; __c3_call_expected = (__c3_function)__c3_user_main; return __c3_user_main(argc, argv, envp); }
int main(int argc, char *argv[], char *envp[]) {
  int variables = 0;
  while (envp[variables]) variables++;
#pragma ccc_checkpoint force
  printf("%d %s\n", argc, variables > 0 ? "with environment" : "empty environment");
  return argv[argc] != 0;
}
