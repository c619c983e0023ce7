// rename-main, `int main(int argc, char **argv)`: the wrapper passes argc and argv on. Calls of
// main and its prototypes are renamed too; an uninstrumented main is renamed all the same. Run
// without any checkpoint.
//
// C3-RUN:

int printf(const char *, ...);

// CHECK: int __c3_user_main(int, char **);
int main(int, char **);

// CHECK-LABEL: int __c3_user_main(int argc, char **argv) {
// CHECK-NEXT: if (argc > 1) return __c3_user_main(argc - 1, argv);
// CHECK-NEXT: printf("%s %d\n", argv[0] ? "named" : "unnamed", argc);
// CHECK-NEXT: return 0;
// CHECK-NEXT: return 0; }
// CHECK: int __c3_app_main(int argc, char **argv, char **envp) { (void)argc; (void)argv; (void)envp; __c3_call_expected = (__c3_function)__c3_user_main; return __c3_user_main(argc, argv); }
int main(int argc, char **argv) {
  if (argc > 1) return main(argc - 1, argv);
  printf("%s %d\n", argv[0] ? "named" : "unnamed", argc);
  return 0;
}
