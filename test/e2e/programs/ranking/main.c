/* main.c - a round-robin tournament with Elo ratings; standings sorted by a chosen key. */
#include <stdio.h>
#include <stdlib.h>

#include "ranking.h"

static double (*sort_key)(const struct player *);

static double by_rating(const struct player *p) { return p->rating; }
static double by_points(const struct player *p) { return p->wins + 0.5 * p->draws; }

static int compare_players(const void *x, const void *y) {
  const struct player *a = x, *b = y;
  double ka = sort_key(a), kb = sort_key(b);
  if (ka != kb) return ka < kb ? 1 : -1;
  return a->name[0] - b->name[0];
}

static unsigned long seed = 12345;

static double chance(void) {
  seed = seed * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(seed >> 11) / 9007199254740992.0;
}

static void play(struct player *a, struct player *b) {
  double ea = expected_score(a->rating, b->rating);
  double r = chance(), score;
  if (r < ea * 0.85) {
    score = 1.0;
    a->wins++;
    b->losses++;
  } else if (r < ea * 0.85 + 0.15) {
    score = 0.5;
    a->draws++;
    b->draws++;
  } else {
    score = 0.0;
    a->losses++;
    b->wins++;
  }
  a->rating += 24.0 * (score - ea);
  b->rating -= 24.0 * (score - ea);
}

static void print_standings(struct table *t, const char *title) {
  struct player *copy = malloc((size_t)table_size(t) * sizeof *copy);
  for (int i = 0, n = table_size(t); i < n; i++) copy[i] = *table_at(t, i);
  qsort(copy, (size_t)table_size(t), sizeof *copy, compare_players);
  printf("%s\n", title);
  for (int i = 0, shown = table_size(t) < 5 ? table_size(t) : 5; i < shown; i++)
    printf("  %d. %-8s %7.1f  %2d-%2d-%2d\n", i + 1, copy[i].name, copy[i].rating, copy[i].wins,
           copy[i].draws, copy[i].losses);
  free(copy);
}

int main(void) {
  static const char *const names[] = {"Anand", "Botvin", "Capa", "Deep", "Euwe", "Fischer",
                                      "Gukesh", "Hou", "Ivanch", "Judit", "Karpov", "Lasker"};
  struct table *t = table_new();
  for (int i = 0; i < 12; i++) table_add(t, names[i], 1500.0 + 40.0 * ((i * 5) % 12));

  for (int round = 1; round <= 6; round++) {
    for (int i = 0, n = table_size(t); i < n; i++)
      for (int j = i + 1; j < n; j++) play(table_at(t, i), table_at(t, j));
    sort_key = round % 2 ? by_rating : by_points;
    char title[48];
    snprintf(title, sizeof title, "after round %d (by %s)", round, round % 2 ? "rating" : "points");
    print_standings(t, title);
#pragma ccc_checkpoint force
  }
  double total = 0;
  for (int i = 0, n = table_size(t); i < n; i++) total += table_at(t, i)->rating;
  printf("mean rating %.3f\n", total / table_size(t));
  table_free(t);
  return 0;
}
