/* ranking.h - players with Elo ratings, kept in a growable table. */
#ifndef RANKING_H
#define RANKING_H

struct player {
  char name[16];
  double rating;
  int wins, losses, draws;
};

struct table;

struct table *table_new(void);
void table_free(struct table *t);
int table_size(const struct table *t);
struct player *table_at(struct table *t, int i);
struct player *table_add(struct table *t, const char *name, double rating);
double expected_score(double rating, double opponent);

#endif
