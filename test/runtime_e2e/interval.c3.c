/* interval.c as c3-precompile rewrites it (written by hand; see recurse.c3.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c3/c3.h"
#include "c3/c3_abi.h"

#define N 64

static int cmp_calls;
static unsigned long state = 12345;
static char *callback_arg;

static struct __c3_global __c3_globals_interval[] __attribute__((section("c3_globals"), used)) = {
    {&cmp_calls, sizeof cmp_calls, "cmp_calls"},
    {&state, sizeof state, "state"},
    {&callback_arg, sizeof callback_arg, "callback_arg"},
};

/* Instrumented (it holds a pragma), but called by qsort: entered_by_replayable_call is 0. */
static int cmp(const void *a, const void *b) {
  struct __c3_frame_cmp {
    struct __c3_frame h;
    const void *a;
    const void *b;
    int x;
    int y;
  } __c3_fr;
  __c3_fr.h.prev = __c3_top;
  __c3_fr.h.site = 0;
  __c3_fr.h.size = sizeof __c3_fr;
  __c3_fr.h.function = "cmp";
  __c3_fr.h.entered_by_replayable_call = __c3_call_expected == (__c3_function)cmp;
  __c3_call_expected = 0;
  __c3_top = &__c3_fr.h;
  if (__c3_restoring) {
    __c3_frame_restore(&__c3_fr.h);
    switch (__c3_fr.h.site) {
      case 1: goto __c3_L1;
      default: __c3_bad_site(&__c3_fr.h);
    }
  }
  __c3_fr.a = a;
  __c3_fr.b = b;
  cmp_calls++;
  if (cmp_calls == 1) {
    __c3_fr.h.site = 1;
  __c3_L1:
    __c3_checkpoint_site(1, "interval.c:20");
  }
  __c3_fr.x = *(const int *)__c3_fr.a;
  __c3_fr.y = *(const int *)__c3_fr.b;
  {
    __c3_top = __c3_fr.h.prev;
    return (__c3_fr.x > __c3_fr.y) - (__c3_fr.x < __c3_fr.y);
  }
}

static void reopened(void *arg) { fprintf(stderr, "on_restart: %s\n", (char *)arg); }

static int __c3_user_main(void) {
  struct __c3_frame_main {
    struct __c3_frame h;
    int *v;
    int i;
    unsigned long hash;
    long j;
  } __c3_fr;
  __c3_fr.h.prev = __c3_top;
  __c3_fr.h.site = 0;
  __c3_fr.h.size = sizeof __c3_fr;
  __c3_fr.h.function = "main";
  __c3_fr.h.entered_by_replayable_call = __c3_call_expected == (__c3_function)__c3_user_main;
  __c3_call_expected = 0;
  __c3_top = &__c3_fr.h;
  if (__c3_restoring) {
    __c3_frame_restore(&__c3_fr.h);
    switch (__c3_fr.h.site) {
      case 1: goto __c3_L1;
      default: __c3_bad_site(&__c3_fr.h);
    }
  }
  __c3_fr.v = __c3_malloc(N * sizeof *__c3_fr.v);
  for (__c3_fr.i = 0; __c3_fr.i < N; __c3_fr.i++) {
    state = state * 6364136223846793005ul + 1442695040888963407ul;
    __c3_fr.v[__c3_fr.i] = (int)(state >> 40);
  }
  callback_arg = __c3_strdup("arg in the heap");
  c3_on_restart(reopened, callback_arg);
  qsort(__c3_fr.v, N, sizeof *__c3_fr.v, cmp);
  __c3_fr.hash = 0;
  for (__c3_fr.j = 0; __c3_fr.j < 40000000; __c3_fr.j++) {
    __c3_fr.hash = __c3_fr.hash * 1099511628211ul + (unsigned long)__c3_fr.v[__c3_fr.j % N] +
                   (unsigned long)__c3_fr.j;
    if (__c3_fr.j % 4000000 == 0) printf("i=%ld h=%016lx\n", __c3_fr.j, __c3_fr.hash);
    __c3_fr.h.site = 1;
  __c3_L1:
    __c3_checkpoint_site(0, "interval.c:41");
  }
  printf("final h=%016lx sorted=%d\n", __c3_fr.hash, __c3_fr.v[0] <= __c3_fr.v[N - 1]);
  {
    __c3_top = __c3_fr.h.prev;
    return 0;
  }
}

int __c3_app_main(int argc, char **argv, char **envp) {
  (void)argc;
  (void)argv;
  (void)envp;
  __c3_call_expected = (__c3_function)__c3_user_main;
  return __c3_user_main();
}
