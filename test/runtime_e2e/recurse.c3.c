/* recurse.c as c3-precompile rewrites it (written by hand, in the shape docs/architecture.md and
 * include/c3/c3_abi.h fix): every instrumented function keeps its parameters and locals in one
 * frame record, registers it on entry, replays to the active site in restore mode, and
 * unregisters before returning. The real tool embeds c3_abi.h verbatim; including it is the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c3/c3_abi.h"

#ifndef GREETING
#define GREETING "hello"
#endif

struct node {
  struct node *next;
  long value;
  long *stack_ref;
  struct node *other;
  long (*op)(long);
  char *tag;
};

static long counter;
long total;
struct node *head;
static const char *greeting = GREETING;
char *arg_copy;
static long *history;
static int history_len;
/* Not instrumented: they cannot reach a checkpoint. */
static long twice(long x) { return 2 * x % 1000003; }
static long plus1(long x) { return x + 1; }

static long step(int i) {
  struct __c3_frame_step {
    struct __c3_frame h;
    int i;
    long s;
    struct node *p;
    long t;
  } __c3_fr;
  /* Function statics stay where they are, each with its own descriptor next to it. */
  static int calls;
  static const struct __c3_global __c3_static_1
      __attribute__((section("c3_globals"), used, aligned(8))) = {(void *)&calls, sizeof(calls),
                                                                    "step.calls"};
  __c3_fr.h.prev = __c3_top;
  __c3_fr.h.site = 0;
  __c3_fr.h.size = sizeof __c3_fr;
  __c3_fr.h.function = "step";
  __c3_fr.h.entered_by_replayable_call = __c3_call_expected == (__c3_function)step;
  __c3_call_expected = 0;
  __c3_top = &__c3_fr.h;
  if (__c3_restoring) {
    __c3_frame_restore(&__c3_fr.h);
    switch (__c3_fr.h.site) {
      case 1: goto __c3_L1;
      case 2: goto __c3_L2;
      default: __c3_bad_site(&__c3_fr.h);
    }
  }
  __c3_fr.i = i;
  __c3_fr.s = 0;
  for (__c3_fr.p = head; __c3_fr.p; __c3_fr.p = __c3_fr.p->next) {
    /* A call through a function pointer may reach a checkpoint (sound default): its own site. */
    __c3_fr.h.site = 1;
  __c3_L1:
    __c3_call_expected = (__c3_function)(__c3_fr.p->op);
    __c3_fr.t = __c3_fr.p->op(__c3_fr.p->value);
    __c3_fr.p->value =
        (__c3_fr.t + *__c3_fr.p->stack_ref + (__c3_fr.p->other ? __c3_fr.p->other->value : 0)) %
        1000003;
    __c3_fr.s += __c3_fr.p->value;
  }
  calls++;
  counter += calls;
  history = __c3_realloc(history, (history_len + 1) * sizeof *history);
  history[history_len++] = __c3_fr.s;
  total += __c3_fr.s;
  printf("step %d: sum=%ld counter=%ld arg=%s\n", __c3_fr.i, __c3_fr.s, counter, arg_copy);
  __c3_fr.h.site = 2;
__c3_L2:
  __c3_checkpoint_site(1, "recurse.c:47");
  {
    __c3_top = __c3_fr.h.prev;
    return __c3_fr.s;
  }
}

static long walk(int depth, long acc) {
  struct __c3_frame_walk {
    struct __c3_frame h;
    int depth;
    long acc;
    long local;
    struct node *n;
    long r;
    int i;
    long s;
  } __c3_fr;
  __c3_fr.h.prev = __c3_top;
  __c3_fr.h.site = 0;
  __c3_fr.h.size = sizeof __c3_fr;
  __c3_fr.h.function = "walk";
  __c3_fr.h.entered_by_replayable_call = __c3_call_expected == (__c3_function)walk;
  __c3_call_expected = 0;
  __c3_top = &__c3_fr.h;
  if (__c3_restoring) {
    __c3_frame_restore(&__c3_fr.h);
    switch (__c3_fr.h.site) {
      case 1: goto __c3_L1;
      case 2: goto __c3_L2;
      default: __c3_bad_site(&__c3_fr.h);
    }
  }
  __c3_fr.depth = depth;
  __c3_fr.acc = acc;
  __c3_fr.local = __c3_fr.depth * 7 + 1;
  __c3_fr.n = __c3_calloc(1, sizeof *__c3_fr.n);
  __c3_fr.n->next = head;
  __c3_fr.n->value = __c3_fr.acc + __c3_fr.depth;
  __c3_fr.n->stack_ref = &__c3_fr.local;
  __c3_fr.n->other = head;
  __c3_fr.n->op = __c3_fr.depth % 2 ? twice : plus1;
  __c3_fr.n->tag = __c3_strdup(greeting);
  head = __c3_fr.n;
  if (__c3_fr.depth > 0) {
    __c3_fr.h.site = 1;
  __c3_L1:
    __c3_call_expected = (__c3_function)(walk);
    __c3_fr.r = walk(__c3_fr.depth - 1, __c3_fr.acc + __c3_fr.local);
  } else {
    __c3_fr.r = 0;
    for (__c3_fr.i = 0; __c3_fr.i < 6; __c3_fr.i++) {
      __c3_fr.h.site = 2;
    __c3_L2:
      __c3_call_expected = (__c3_function)(step);
      __c3_fr.s = step(__c3_fr.i);
      __c3_fr.r += __c3_fr.s;
      __c3_fr.local += __c3_fr.s % 10;
    }
  }
  __c3_fr.r += __c3_fr.local * __c3_fr.n->value % 1000;
  printf("unwind depth %d: local=%ld r=%ld tag=%s\n", __c3_fr.depth, __c3_fr.local, __c3_fr.r,
         __c3_fr.n->tag);
  head = __c3_fr.n->next;
  __c3_free(__c3_fr.n->tag);
  __c3_free(__c3_fr.n);
  {
    __c3_top = __c3_fr.h.prev;
    return __c3_fr.r;
  }
}

/* The user's main, renamed. */
static int __c3_user_main(int argc, char **argv) {
  struct __c3_frame_main {
    struct __c3_frame h;
    int argc;
    char **argv;
    long r;
    long h_;
    int i;
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
  __c3_fr.argc = argc;
  __c3_fr.argv = argv;
  arg_copy = __c3_fr.argc > 1 ? __c3_fr.argv[1] : "none";
  printf("%s from recurse, arg %s\n", greeting, arg_copy);
  __c3_fr.h.site = 1;
__c3_L1:
  __c3_call_expected = (__c3_function)(walk);
  __c3_fr.r = walk(5, 0);
  __c3_fr.h_ = 0;
  for (__c3_fr.i = 0; __c3_fr.i < history_len; __c3_fr.i++)
    __c3_fr.h_ = __c3_fr.h_ * 31 + history[__c3_fr.i];
  printf("result %ld total %ld counter %ld history %d hash %ld\n", __c3_fr.r, total, counter,
         history_len, __c3_fr.h_);
  {
    __c3_top = __c3_fr.h.prev;
    return 0;
  }
}

int __c3_app_main(int argc, char **argv, char **envp) {
  (void)envp;
  __c3_call_expected = (__c3_function)__c3_user_main;
  return __c3_user_main(argc, argv);
}

/* The file's globals, as the register-globals pass appends them. */
static const struct __c3_global __c3_file_globals[]
    __attribute__((section("c3_globals"), used, aligned(8))) = {
        {(void *)&counter, sizeof(counter), "counter"},
        {(void *)&total, sizeof(total), "total"},
        {(void *)&head, sizeof(head), "head"},
        {(void *)&greeting, sizeof(greeting), "greeting"},
        {(void *)&arg_copy, sizeof(arg_copy), "arg_copy"},
        {(void *)&history, sizeof(history), "history"},
        {(void *)&history_len, sizeof(history_len), "history_len"}};
