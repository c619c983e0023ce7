/* calc.c - evaluates generated arithmetic expressions with a recursive-descent parser, then
 * runs a few bookkeeping loops over the results.
 *
 * Reading a character (next_char) can take a checkpoint, so the parser calls it from loop
 * conditions, switch conditions, return statements, nested calls and short-circuit operands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
  const char *text;
  int pos;
  int depth;
  int errors;
};

static unsigned long chars_read;

static int next_char(struct reader *r) {
  int c = r->text[r->pos];
  if (c != '\0') r->pos++;
  if (++chars_read % 199 == 0) {
#pragma ccc_checkpoint force
  }
  return c;
}

static int peek_char(const struct reader *r) { return r->text[r->pos]; }

static int skip_spaces(struct reader *r) {
  int skipped = 0;
  while (peek_char(r) == ' ' && next_char(r)) skipped++;
  return skipped;
}

static long parse_sum(struct reader *r);

static long parse_number(struct reader *r) {
  long value = 0;
  int c;
  skip_spaces(r);
  do {
    c = next_char(r);
    value = value * 10 + (c - '0');
  } while (peek_char(r) >= '0' && peek_char(r) <= '9');
  return value;
}

static long parse_atom(struct reader *r) {
  skip_spaces(r);
  if (peek_char(r) == '(') {
    long inner;
    next_char(r);
    r->depth++;
    inner = parse_sum(r);
    skip_spaces(r);
    if (next_char(r) != ')') r->errors++;
    r->depth--;
    return inner;
  }
  if (peek_char(r) == '-' && next_char(r)) return -parse_atom(r);
  return parse_number(r);
}

static long parse_product(struct reader *r) {
  long value = parse_atom(r);
  for (skip_spaces(r); peek_char(r) == '*' || peek_char(r) == '%'; skip_spaces(r)) {
    int op = next_char(r);
    long rhs = parse_atom(r);
    if (op == '*')
      value = value * rhs % 1000003;
    else
      value = rhs != 0 ? value % rhs : (r->errors++, 0);
  }
  return value;
}

static long parse_sum(struct reader *r) {
  long value = parse_product(r);
  while (skip_spaces(r) >= 0 && (peek_char(r) == '+' || peek_char(r) == '-')) {
    switch (next_char(r)) {
    case '+': value += parse_product(r); break;
    case '-': value -= parse_product(r); break;
    default: r->errors++;
    }
  }
  return value;
}

/* Generated input: a deterministic mix of numbers, operators and parentheses. */
static unsigned long gen_state = 7;

static unsigned gen(unsigned limit) {
  gen_state = gen_state * 2862933555777941757UL + 3037000493UL;
  return (unsigned)(gen_state >> 40) % limit;
}

static void generate(char *out, int depth) {
  char *end = out + strlen(out);
  if (depth > 3 || gen(3) == 0) {
    sprintf(end, "%u", gen(1000));
    return;
  }
  int terms = 2 + (int)gen(3);
  strcat(end, "(");
  for (int i = 0; i < terms; i++) {
    if (i > 0) strcat(out, i % 3 == 0 ? " * " : (gen(2) ? " + " : " - "));
    if (gen(5) == 0) strcat(out, "-");
    generate(out, depth + 1);
  }
  strcat(out, ")");
}

static long evaluate(const char *text, int *errors) {
  struct reader r = {text, 0, 0, 0};
  long v = parse_sum(&r);
  *errors = r.errors;
  return v;
}

/* Small helpers that reach checkpoints through next_char. */
static long scaled(long v) {
  struct reader r = {"x", 0, 0, 0};
  return v * 3 + next_char(&r);
}

static long mix(long a) {
  struct reader r = {"yz", 0, 0, 0};
  long first = next_char(&r);
  return (a ^ first) + next_char(&r);
}

static int is_big(long v) {
  struct reader r = {"!", 0, 0, 0};
  return next_char(&r) == '!' && (v > 400000 || v < -400000);
}

int main(void) {
  enum { N = 60 }; /* expressions generated */
  static char text[8192];
  long results[N];
  int total_errors = 0;

  for (int i = 0; i < N; i++) {
    text[0] = '\0';
    generate(text, 0);
    int errors;
    results[i] = evaluate(text, &errors);
    total_errors += errors;
    if (i % 10 == 0) printf("expr %2d (%zu chars) = %ld%s\n", i, strlen(text), results[i], errors ? " (errors)" : "");
  }

  long acc = 0;
  int i = 0;
  while (i < N && (i < 4 || is_big(results[i]) == 0)) acc += results[i++];
  printf("prefix of small values: %d items, sum %ld\n", i, acc);

  int big = 0;
  for (int k = 0; k < N; k++)
    if (is_big(results[k]) || results[k] == 0) big++;
  printf("big or zero: %d\n", big);

  long folded = 0;
  for (int k = (int)scaled(0) - 'x'; k < N; k += (int)scaled(1) - 'x' - 2) folded = mix(folded + results[k]);
  printf("folded: %ld\n", folded);

  long chain = mix(scaled(results[0]));
  long picked = is_big(chain) ? scaled(chain % 1000) : mix(chain);
  printf("chain %ld, picked %ld\n", chain, picked);

  int k = 0;
  do {
    acc = acc * 31 % 1000003 + mix(results[k]);
  } while (++k < N && scaled(k) > 0);
  printf("do-while acc %ld\n", acc);

  int odd = 0, even = 0, other = 0;
  for (int j = 0; j < N; j++) {
    switch ((int)(mix(results[j]) & 3)) {
    case 0: even++; break;
    case 1: odd++; /* fall through */
    case 3: odd++; break;
    default: other++;
    }
  }
  printf("switch: %d %d %d\n", even, odd, other);

  long flag = results[1] > 0 || is_big(results[2]);
  long both = results[3] != 0 && mix(results[3]) > 0;
  printf("flags %ld %ld, errors %d, chars read %lu\n", flag, both, total_errors, chars_read);
  return 0;
}
