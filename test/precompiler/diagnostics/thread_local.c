// Thread-local variables cannot be checkpointed: c3 programs are single-threaded. (Functions are
// checked before globals, hence the order of the messages.)
_Thread_local int per_thread;

void f(void) {
  static _Thread_local int calls;
  // CHECK: {{^.*[/]}}thread_local.c:[[@LINE-1]]:28: error: thread-local variable in a function that can reach a checkpoint{{$}}
  // CHECK-NEXT: {{^}}  static _Thread_local int calls;{{$}}
  // CHECK-NEXT: {{^}}                           ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}thread_local.c:[[@LINE-4]]:28: note: hint: c3 programs are single-threaded: drop _Thread_local{{$}}
  // CHECK-NEXT: {{^.*[/]}}thread_local.c:3:19: error: thread-local variable 'per_thread' cannot be checkpointed{{$}}
  // CHECK-NEXT: {{^}}_Thread_local int per_thread;{{$}}
  // CHECK-NEXT: {{^}}                  ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}thread_local.c:3:19: note: hint: c3 programs are single-threaded (or MPI_THREAD_FUNNELED): drop _Thread_local{{$}}
  // CHECK-NEXT: 2 errors generated.
  calls++;
  per_thread++;
#pragma ccc_checkpoint
}
