/* corners2.c - C corners around checkpoints, not a realistic program: a pragma from a macro
 * (_Pragma), calls in macro arguments, static inline and K&R-style functions, void returns of
 * void calls, assignments whose left side has side effects (a[i++] = f(), *p++ = f()), nested
 * ?:, comma operators in loop conditions, sizeof of a call, and exit() with status 5.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECKPOINT_NOW _Pragma("ccc_checkpoint force")
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define TRY(expr) do { if ((expr) < 0) { fprintf(stderr, "failed: %s\n", #expr); exit(1); } } while (0)

static int counter;

static int step(int x) {
  counter++;
  if (counter % 4 == 0) {
    CHECKPOINT_NOW
  }
  return x + 1;
}

static inline int twice(int x) { return step(step(x)); }

static int old_style(a, b)
int a;
long b;
{
  return step(a) + (int)b;
}

static void nothing(int x) {
  if (x > 100) return;
  step(x);
}

static void relay(int x) { return nothing(x); }

struct pair { int a, b; };
static struct pair make_pair(int x) { struct pair p = {step(x), x}; return p; }

int main(void) {
  int values[16] = {0};
  int i = 0;
  int *cursor = values;
  values[i++] = step(10);
  values[i++] = step(20);
  *cursor++ = step(5) * 2;
  *cursor++ += step(1);
  TRY(step(3));
  int m = MAX(step(7), 3);
  long g = step(40);
  int t = twice(100);
  int o = old_style(5, 6L);
  relay(1);
  int n = i > 1 ? step(i) : i > 0 ? step(2 * i) : step(3);
  struct pair pairs[3];
  pairs[1] = make_pair(50);
  pairs[i].a = step(60);
  int total = 0;
  for (int k = 0; step(k), k < 5; k++) total += k;
  char buf[64];
  snprintf(buf, sizeof buf, "%d", step(99));
  int len = (int)sizeof(step(1));
  printf("values %d %d %d i=%d\n", values[0], values[1], values[2], i);
  printf("m %d g %ld t %d o %d n %d pair %d %d %d total %d buf %s len %d\n", m, g, t, o, n,
         pairs[1].a, pairs[1].b, pairs[2].a, total, buf, len);
  printf("counter %d\n", counter);
  exit(counter % 5 + 3);
}
