/* report.c - summaries of the ledger. Has no pragma of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

static unsigned long calls; /* same name as a static in util.c */

struct totals {
  long sum;
  long turnover;
  int rejected;
  unsigned long hash;
};

static void add_up(struct account *a, void *context) {
  struct totals *t = context;
  t->sum += a->balance_cents;
  t->turnover += a->turnover_cents;
  t->rejected += a->rejected;
  t->hash = mix_hash(t->hash, a->balance_cents);
  for (const struct posting *p = a->postings; p != NULL; p = p->older) t->hash = mix_hash(t->hash, p->serial);
}

static int richer(const void *x, const void *y) {
  const struct account *a = *(struct account *const *)x, *b = *(struct account *const *)y;
  if (a->balance_cents != b->balance_cents) return a->balance_cents < b->balance_cents ? 1 : -1;
  return a->number - b->number;
}

void print_report(const char *title, int top) {
  struct totals t = {0, 0, 0, 14695981039346656037UL};
  char money[32], turnover[32];
  struct account *sorted[MAX_ACCOUNTS];
  calls++;
  for_each_account(add_up, &t);
  memcpy(sorted, accounts, sizeof sorted);
  qsort(sorted, (size_t)account_count, sizeof sorted[0], richer);
  printf("== %s (report %lu) ==\n", title, calls);
  printf("total %s, turnover %s, rejected %d, hash %016lx\n", format_cents(money, sizeof money, t.sum),
         format_cents(turnover, sizeof turnover, t.turnover), t.rejected, t.hash);
  top = clamp_int(top, 0, account_count);
  for (int i = 0; i < top; i++)
    printf("  #%d %-8s %12s\n", sorted[i]->number, sorted[i]->owner,
           format_cents(money, sizeof money, sorted[i]->balance_cents));
}

long audit(void) {
  long sum = 0;
  for (int i = 0; i < account_count; i++) {
    long postings = 0;
    for (const struct posting *p = accounts[i]->postings; p != NULL; p = p->older) postings += p->amount_cents;
    sum += postings % 1000;
  }
  return sum;
}
