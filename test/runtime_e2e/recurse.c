/* Original program for the runtime end-to-end test; recurse.c3.c is this file as c3-precompile
 * rewrites it. Built plain, it gives the expected output. A recursion six frames deep reaches a
 * forced checkpoint in a loop; heap nodes point to stack locals of every frame, to each other, to
 * functions, to strings in the heap and to argv. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static long twice(long x) { return 2 * x % 1000003; }
static long plus1(long x) { return x + 1; }

static long step(int i) {
  static int calls;
  long s = 0;
  for (struct node *p = head; p; p = p->next) {
    long t = p->op(p->value);
    p->value = (t + *p->stack_ref + (p->other ? p->other->value : 0)) % 1000003;
    s += p->value;
  }
  calls++;
  counter += calls;
  history = realloc(history, (history_len + 1) * sizeof *history);
  history[history_len++] = s;
  total += s;
  printf("step %d: sum=%ld counter=%ld arg=%s\n", i, s, counter, arg_copy);
#pragma ccc_checkpoint force
  return s;
}

static long walk(int depth, long acc) {
  long local = depth * 7 + 1;
  struct node *n = calloc(1, sizeof *n);
  n->next = head;
  n->value = acc + depth;
  n->stack_ref = &local;
  n->other = head;
  n->op = depth % 2 ? twice : plus1;
  n->tag = strdup(greeting);
  head = n;
  long r;
  if (depth > 0) {
    r = walk(depth - 1, acc + local);
  } else {
    r = 0;
    for (int i = 0; i < 6; i++) {
      long s = step(i);
      r += s;
      local += s % 10;
    }
  }
  r += local * n->value % 1000;
  printf("unwind depth %d: local=%ld r=%ld tag=%s\n", depth, local, r, n->tag);
  head = n->next;
  free(n->tag);
  free(n);
  return r;
}

int main(int argc, char **argv) {
  arg_copy = argc > 1 ? argv[1] : "none";
  printf("%s from recurse, arg %s\n", greeting, arg_copy);
  long r = walk(5, 0);
  long h = 0;
  for (int i = 0; i < history_len; i++) h = h * 31 + history[i];
  printf("result %ld total %ld counter %ld history %d hash %ld\n", r, total, counter, history_len, h);
  return 0;
}
