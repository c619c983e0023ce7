// main with more than three parameters cannot be called by the runtime. Clang itself rejects it
// already while c3-precompile parses the input.
int main(int argc, char **argv, char **envp, int extra) {
  // CHECK: {{^.*[/]}}main_parameters.c:[[@LINE-1]]:5: error: too many parameters (4) for 'main': must be 0, 2, or 3{{$}}
  // CHECK-NEXT: {{^}}int main(int argc, char **argv, char **envp, int extra) {{[{]}}{{$}}
  // CHECK-NEXT: {{^}}    ^{{$}}
  // CHECK-NEXT: 1 error generated.
  return argc + (argv == envp) + extra;
}
