/* corners1.c - C corners around checkpoints, not a realistic program: compound literals whose
 * address is kept across a checkpoint, shadowed names of different types, string-initialised
 * arrays, bit-fields, structs passed by value, goto, declarations in switch cases, Duff's device,
 * float/long double/_Bool/char returns, 6000-deep recursion, block-scope statics, a 320 KB frame
 * and allocator corner cases (posix_memalign, aligned_alloc, malloc(0), realloc(NULL), shrink).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>

struct vec2 { double x, y; };
struct flags { unsigned a : 3; unsigned b : 5; signed c : 4; };
struct big { int cells[64]; char tag[8]; };

static int ticks;
static void tick(void) {
  if (++ticks % 3 == 0) {
#pragma ccc_checkpoint force
  }
}

/* compound literal whose address is kept across a checkpoint */
static double compound(void) {
  struct vec2 *p = &(struct vec2){1.5, 2.5};
  int *arr = (int[]){10, 20, 30};
  tick();
  p->x += arr[1];
  tick();
  return p->x * p->y + arr[2];
}

/* shadowed names of different types */
static double shadow(int n) {
  double total = 0;
  for (int i = 0; i < n; i++) {
    double i2 = i * 0.5;
    {
      double i = i2 + 1;
      tick();
      total += i;
    }
    for (long i = 0; i < 2; i++) {
      tick();
      total += (double)i;
    }
  }
  return total;
}

/* string-initialised arrays, bit-fields, struct by value */
static int strings(struct big b, struct flags f) {
  char greeting[] = "hello, world";
  char name[16] = "c3";
  const char *words[] = {"one", "two", "three"};
  tick();
  greeting[0] = 'H';
  strcat(name, "-ok");
  tick();
  f.a = (f.a + 1) & 7;
  f.c = -3;
  printf("%s %s %s %d %d %d %d %s\n", greeting, name, words[2], f.a, f.b, f.c, b.cells[63], b.tag);
  return (int)strlen(greeting) + b.cells[10];
}

/* goto and switch with declarations */
static int jumpy(int n) {
  int found = -1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      tick();
      if (i * j == 12) {
        found = i * 100 + j;
        goto done;
      }
    }
done:
  switch (found % 7) {
  case 3: {
    int extra = found / 2;
    tick();
    found += extra;
    break;
  }
  default: {
    int other = 1;
    tick();
    found -= other;
  }
  }
  return found;
}

/* Duff's device with a checkpoint-reaching call */
static int duff(int count) {
  int sum = 0;
  int n = (count + 3) / 4;
  switch (count % 4) {
  case 0: do { tick(); sum += 1;
  case 3: tick(); sum += 2;
  case 2: tick(); sum += 3;
  case 1: tick(); sum += 4;
  } while (--n > 0);
  }
  return sum;
}

static float ffloat(float x) { tick(); return x * 1.5f; }
static long double flong(long double x) { tick(); return x / 3.0L; }
static bool fbool(int x) { tick(); return x > 2; }
static char fchar(int x) { tick(); return (char)('a' + x); }
static unsigned short fshort(int x) { tick(); return (unsigned short)(x * 1000); }

/* deep recursion */
static long deep(int n) {
  if (n == 0) {
    tick();
    tick();
    tick();
    return 0;
  }
  long below = deep(n - 1);
  if (n % 1000 == 0) tick();
  return below + n;
}

/* block-scope statics */
static int blockstatic(int rounds) {
  int r = 0;
  for (int i = 0; i < rounds; i++) {
    static int seen;
    seen += i;
    tick();
    {
      static char history[32];
      history[i % 31] = (char)('A' + i % 26);
      r = seen + (int)strlen(history);
    }
  }
  return r;
}

/* big local array */
static long bigframe(void) {
  double grid[200][200];
  long s = 0;
  for (int i = 0; i < 200; i++)
    for (int j = 0; j < 200; j++) grid[i][j] = i * 0.25 + j;
  tick();
  for (int i = 0; i < 200; i++) s += (long)grid[i][199 - i];
  tick();
  return s;
}

/* allocator corners */
static int alloc_corners(void) {
  void *p = NULL;
  int rc = posix_memalign(&p, 64, 1000);
  char *q = aligned_alloc(256, 512);
  char *z = malloc(0);
  char *c = calloc(10, 10);
  char *r = realloc(NULL, 40);
  memset(p, 7, 1000);
  memset(q, 8, 512);
  strcpy(r, "grow me");
  tick();
  r = realloc(r, 4000);
  strcat(r, " and more");
  r = realloc(r, 20);
  tick();
  int ok = rc == 0 && ((unsigned long)p % 64) == 0 && ((unsigned long)q % 256) == 0 &&
           ((char *)p)[999] == 7 && q[511] == 8 && c[99] == 0;
  printf("alloc: %d '%.*s'\n", ok, 16, r);
  free(p);
  free(q);
  free(z);
  free(c);
  free(r);
  free(NULL);
  return ok;
}

int main(void) {
  struct big b;
  memset(&b, 0, sizeof b);
  b.cells[10] = 5;
  b.cells[63] = 63;
  strcpy(b.tag, "tag");
  struct flags f = {5, 17, 2};
  printf("compound %.3f\n", compound());
  printf("shadow %.3f\n", shadow(5));
  printf("strings %d\n", strings(b, f));
  printf("jumpy %d\n", jumpy(8));
  printf("duff %d %d %d\n", duff(9), duff(4), duff(1));
  float fl = ffloat(2.5f);
  long double ld = flong(10.0L);
  bool bo = fbool(3);
  char ch = fchar(4);
  unsigned short sh = fshort(70);
  printf("returns %.3f %.6Lf %d %c %u\n", fl, ld, bo, ch, sh);
  printf("deep %ld\n", deep(6000));
  printf("blockstatic %d\n", blockstatic(40));
  printf("bigframe %ld\n", bigframe());
  printf("alloc %d\n", alloc_corners());
  printf("ticks %d\n", ticks);
  return 0;
}
