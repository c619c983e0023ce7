/* main.c - drives the ledger with generated transactions. */
#include <stdio.h>
#include <stdlib.h>

#include "ledger.h"

static const char *const names[] = {"ada", "brian", "chen", "dana", "emeka", "farah", "goran",
                                    "hana", "ivo", "jun", "kofi", "lena"};

int main(void) {
  unsigned long rng = 99;
  int n_names = (int)(sizeof names / sizeof names[0]);
  for (int i = 0; i < 20; i++) {
    char owner[24];
    snprintf(owner, sizeof owner, "%s%d", names[i % n_names], i / n_names);
    open_account(owner);
  }

  int accepted = 0;
  for (int serial = 1; serial <= 4000; serial++) {
    struct txn t;
    t.serial = serial;
    t.kind = (enum txn_kind)(next_random(&rng) % TXN_KINDS);
    t.from = (int)(next_random(&rng) % (unsigned)account_count);
    t.to = (int)(next_random(&rng) % (unsigned)account_count);
    t.amount_cents = 100 + next_random(&rng) % 50000;
    if (t.kind == TXN_DEPOSIT) t.from = -1;
    if (t.kind == TXN_WITHDRAW) t.to = -1;
    accepted += apply_txn(&t);
    if (serial % 1000 == 0) {
      char title[32];
      snprintf(title, sizeof title, "after %d", serial);
      print_report(title, 3);
#pragma ccc_checkpoint
    }
  }
  printf("accepted %d of %ld, audit %ld\n", accepted, transactions_applied, audit());
  print_report("final", 5);
  close_all();
  return 0;
}
