// rename-main, three parameters: envp is saved in main's frame like argv, so after a restart it
// must still point to a valid environment, as argv does (see precompiler-bugs.md, golden-7: the
// runtime copies argv into the arena, not envp).
//
// C3-RUN: after-commit:1

#include <stdio.h>
#include <string.h>

// CHECK: int __c3_app_main(int argc, char **argv, char **envp) { (void)argc; (void)argv; (void)envp; __c3_call_expected = (__c3_function)__c3_user_main; return __c3_user_main(argc, argv, envp); }
int main(int argc, char **argv, char **envp) {
#pragma ccc_checkpoint force
  int paths = 0;
  for (char **e = envp; *e; e++) paths += strncmp(*e, "PATH=", 5) == 0;
  printf("%d %d %s\n", argc, paths, strrchr(argv[0], '/') ? "path" : "name");
  return 0;
}
