/* accounts.c - the accounts and their posting histories. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

struct account *accounts[MAX_ACCOUNTS];
int account_count;
long transactions_applied;

static int next_number = 1000;

struct account *open_account(const char *owner) {
  if (account_count == MAX_ACCOUNTS) return NULL;
  struct account *a = calloc(1, sizeof *a);
  a->number = next_number;
  next_number += 7;
  a->owner = strdup(owner);
  accounts[account_count++] = a;
  return a;
}

static void post(struct account *a, long amount, int serial) {
  struct posting *p = malloc(sizeof *p);
  p->amount_cents = amount;
  p->serial = serial;
  p->older = a->postings;
  a->postings = p;
  a->balance_cents += amount;
  a->turnover_cents += labs(amount);
}

/* Keeps the newest few postings of an account and frees the rest. */
static int prune(struct account *a, int keep) {
  struct posting **link = &a->postings;
  int freed = 0;
  while (*link != NULL && keep-- > 0) link = &(*link)->older;
  while (*link != NULL) {
    struct posting *dead = *link;
    *link = dead->older;
    free(dead);
    freed++;
  }
  return freed;
}

int apply_txn(const struct txn *t) {
  struct account *from = t->from >= 0 ? accounts[t->from] : NULL;
  struct account *to = t->to >= 0 ? accounts[t->to] : NULL;
  int ok = 1;
  switch (t->kind) {
  case TXN_DEPOSIT: post(to, t->amount_cents, t->serial); break;
  case TXN_WITHDRAW:
    if (from->balance_cents < t->amount_cents) {
      from->rejected++;
      ok = 0;
    } else {
      post(from, -t->amount_cents, t->serial);
    }
    break;
  case TXN_TRANSFER:
    if (from == to || from->balance_cents < t->amount_cents) {
      from->rejected++;
      ok = 0;
    } else {
      post(from, -t->amount_cents, t->serial);
      post(to, t->amount_cents, t->serial);
    }
    break;
  default: ok = 0;
  }
  transactions_applied++;
  if (transactions_applied % 500 == 0) {
    int freed = 0;
    for (int i = 0; i < account_count; i++) freed += prune(accounts[i], 5);
    printf("[%ld transactions] pruned %d postings\n", transactions_applied, freed);
#pragma ccc_checkpoint force
  }
  return ok;
}

void for_each_account(void (*visit)(struct account *, void *), void *context) {
  for (int i = 0; i < account_count; i++) visit(accounts[i], context);
}

void close_all(void) {
  for (int i = 0; i < account_count; i++) {
    prune(accounts[i], 0);
    free(accounts[i]->owner);
    free(accounts[i]);
    accounts[i] = NULL;
  }
  account_count = 0;
}
