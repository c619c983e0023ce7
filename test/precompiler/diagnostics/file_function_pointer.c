// A variadic libc function taking a FILE *, used as a function pointer: a call through it would
// hand libc c3's stream slot, and a thunk cannot forward '...'.
#include <stdio.h>

int (*printer)(FILE *, const char *, ...) = fprintf;
// CHECK: {{^.*[/]}}file_function_pointer.c:[[@LINE-1]]:45: error: 'fprintf' used as a function pointer: c3 cannot translate the FILE * passed through it{{$}}
// CHECK-NEXT: {{^}}int (*printer)(FILE *, const char *, ...) = fprintf;{{$}}
// CHECK-NEXT: {{^}}                                            ^{{$}}
// CHECK-NEXT: {{^.*[/]}}file_function_pointer.c:[[@LINE-4]]:45: note: hint: call 'fprintf' directly, or through a function of your own{{$}}
// CHECK: 1 error generated.
