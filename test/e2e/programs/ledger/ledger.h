/* ledger.h - a toy bank ledger split over several files. */
#ifndef LEDGER_H
#define LEDGER_H

#include <stddef.h>

#define MAX_ACCOUNTS 64

struct account {
  int number;
  char *owner;
  long balance_cents;
  long turnover_cents;
  int rejected;
  struct posting *postings; /* newest first */
};

struct posting {
  long amount_cents;
  int serial;
  struct posting *older;
};

enum txn_kind { TXN_DEPOSIT, TXN_WITHDRAW, TXN_TRANSFER, TXN_KINDS };

struct txn {
  enum txn_kind kind;
  int from, to;
  long amount_cents;
  int serial;
};

/* accounts.c */
extern struct account *accounts[MAX_ACCOUNTS];
extern int account_count;
extern long transactions_applied;
struct account *open_account(const char *owner);
int apply_txn(const struct txn *t);
void for_each_account(void (*visit)(struct account *, void *), void *context);
void close_all(void);

/* report.c */
void print_report(const char *title, int top);
long audit(void);

/* util.c (no checkpoints reachable from here) */
unsigned long mix_hash(unsigned long h, long value);
char *format_cents(char *out, size_t size, long cents);
unsigned next_random(unsigned long *state);
int clamp_int(int v, int lo, int hi);

#endif
