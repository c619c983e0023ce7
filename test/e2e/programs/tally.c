/* tally.c - totals an order list read from standard input.
 *
 *   usage: tally < orders.txt        lines: <customer> <item> <quantity> <unit price>
 *
 * Keeps per-customer totals in a sorted linked list and prints a running summary every 20
 * orders.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct customer {
  char name[24];
  int orders;
  long cents;
  struct customer *next;
};

static struct customer *find_or_add(struct customer **list, const char *name) {
  struct customer **link = list;
  while (*link != NULL && strcmp((*link)->name, name) < 0) link = &(*link)->next;
  if (*link != NULL && strcmp((*link)->name, name) == 0) return *link;
  struct customer *c = calloc(1, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->next = *link;
  *link = c;
  return c;
}

int main(void) {
  struct customer *customers = NULL;
  char line[256];
  int lineno = 0, orders = 0;
  long grand = 0;
  while (fgets(line, sizeof line, stdin) != NULL) {
    char who[64], item[64];
    int quantity;
    double price;
    lineno++;
    if (line[0] == '#' || line[0] == '\n') continue;
    if (sscanf(line, "%63s %63s %d %lf", who, item, &quantity, &price) != 4) {
      printf("line %d: cannot parse\n", lineno);
      continue;
    }
    struct customer *c = find_or_add(&customers, who);
    long cents = (long)(quantity * price * 100.0 + 0.5);
    c->orders++;
    c->cents += cents;
    grand += cents;
    orders++;
    if (orders % 20 == 0) {
      printf("after %d orders (line %d): %ld.%02ld, last %s bought %d %s\n", orders, lineno,
             grand / 100, grand % 100, who, quantity, item);
#pragma ccc_checkpoint force
    }
  }
  for (struct customer *c = customers; c != NULL; c = c->next)
    printf("%-10s %3d orders %8ld.%02ld\n", c->name, c->orders, c->cents / 100, c->cents % 100);
  printf("%d orders on %d lines, total %ld.%02ld\n", orders, lineno, grand / 100, grand % 100);
  while (customers != NULL) {
    struct customer *next = customers->next;
    free(customers);
    customers = next;
  }
  return 0;
}
