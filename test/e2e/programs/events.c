/* events.c - a small discrete-event simulation of a bank with two tellers.
 *
 * Events sit in a binary heap ordered by time. Each event carries its handler as a function
 * pointer; customers are heap records that point at their teller (a global), at the statistics
 * kept in main's frame, at the queue they wait in (another heap block) and at a greeting
 * formatter picked from a table of functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim;
struct event;
typedef void (*handler_fn)(struct sim *, struct event *);
typedef int (*greet_fn)(char *out, size_t size, const char *who, int number);

struct stats {
  long served;
  long total_wait;
  long longest_wait;
  long balked;
  char busiest[16];
};

struct teller {
  const char *name;
  int busy_until;
  long served;
  struct customer *current;
};

struct customer {
  int id;
  int arrived;
  int service_time;
  struct teller *teller;     /* a global */
  struct stats *stats;       /* a local of main */
  struct line *waiting_in;   /* another heap block */
  greet_fn greet;            /* a function */
  char *note;                /* heap string */
};

struct line {
  struct customer **slots;
  int head, count, capacity;
  const char *label;
};

struct event {
  int time;
  int seq;
  handler_fn handler;
  struct customer *who;
};

struct sim {
  struct event *heap;
  int size, capacity;
  int now;
  int next_seq;
  struct line *line;
  struct stats *stats;
  unsigned long random;
  int arrivals_left;
  long handled;
};

static struct teller tellers[2] = {{"Ada", 0, 0, NULL}, {"Grace", 0, 0, NULL}};
static int total_greeted;

static int greet_plain(char *out, size_t size, const char *who, int number) {
  return snprintf(out, size, "%s serves #%d", who, number);
}
static int greet_polite(char *out, size_t size, const char *who, int number) {
  return snprintf(out, size, "%s is pleased to serve customer %d", who, number);
}
static int greet_short(char *out, size_t size, const char *who, int number) {
  (void)who;
  return snprintf(out, size, "#%d", number);
}
static greet_fn greeters[] = {greet_plain, greet_polite, greet_short};

static int draw(struct sim *s, int limit) {
  s->random = s->random * 1103515245UL + 12345UL;
  return (int)((s->random >> 16) % (unsigned long)limit);
}

static void push_event(struct sim *s, int time, handler_fn h, struct customer *who) {
  if (s->size == s->capacity) {
    s->capacity = s->capacity ? 2 * s->capacity : 8;
    s->heap = realloc(s->heap, (size_t)s->capacity * sizeof *s->heap);
  }
  int i = s->size++;
  struct event e = {time, s->next_seq++, h, who};
  while (i > 0) {
    int parent = (i - 1) / 2;
    struct event *p = &s->heap[parent];
    if (p->time < e.time || (p->time == e.time && p->seq < e.seq)) break;
    s->heap[i] = *p;
    i = parent;
  }
  s->heap[i] = e;
}

static int earlier(const struct event *a, const struct event *b) {
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static struct event pop_event(struct sim *s) {
  struct event top = s->heap[0];
  struct event last = s->heap[--s->size];
  int i = 0;
  for (;;) {
    int child = 2 * i + 1;
    if (child >= s->size) break;
    if (child + 1 < s->size && earlier(&s->heap[child + 1], &s->heap[child])) child++;
    if (!earlier(&s->heap[child], &last)) break;
    s->heap[i] = s->heap[child];
    i = child;
  }
  if (s->size > 0) s->heap[i] = last;
  return top;
}

static void line_push(struct line *l, struct customer *c) {
  if (l->count == l->capacity) {
    int grown = l->capacity * 2;
    struct customer **slots = malloc((size_t)grown * sizeof *slots);
    for (int k = 0; k < l->count; k++) slots[k] = l->slots[(l->head + k) % l->capacity];
    free(l->slots);
    l->slots = slots;
    l->head = 0;
    l->capacity = grown;
  }
  l->slots[(l->head + l->count) % l->capacity] = c;
  l->count++;
  c->waiting_in = l;
}

static struct customer *line_pop(struct line *l) {
  if (l->count == 0) return NULL;
  struct customer *c = l->slots[l->head];
  l->head = (l->head + 1) % l->capacity;
  l->count--;
  c->waiting_in = NULL;
  return c;
}

static void on_departure(struct sim *s, struct event *e);

static void start_service(struct sim *s, struct teller *t, struct customer *c) {
  char text[96];
  long wait = s->now - c->arrived;
  c->teller = t;
  t->current = c;
  t->busy_until = s->now + c->service_time;
  c->stats->total_wait += wait;
  if (wait > c->stats->longest_wait) c->stats->longest_wait = wait;
  c->greet(text, sizeof text, t->name, c->id);
  total_greeted++;
  if (c->id % 25 == 0) printf("t=%5d %s (waited %ld, note '%s')\n", s->now, text, wait, c->note);
  push_event(s, t->busy_until, on_departure, c);
}

static struct teller *free_teller(void) {
  for (int k = 0; k < 2; k++)
    if (tellers[k].current == NULL) return &tellers[k];
  return NULL;
}

static void on_departure(struct sim *s, struct event *e) {
  struct customer *c = e->who;
  struct teller *t = c->teller;
  t->served++;
  t->current = NULL;
  c->stats->served++;
  if (c->stats->served % 40 == 0) {
    printf("t=%5d %ld served, %d waiting, %s has served %ld\n", s->now, c->stats->served,
           s->line->count, t->name, t->served);
#pragma ccc_checkpoint force
  }
  free(c->note);
  free(c);
  struct customer *next = line_pop(s->line);
  if (next != NULL) start_service(s, t, next);
}

static void on_arrival(struct sim *s, struct event *e) {
  struct customer *c = e->who;
  int id = c->id;
  if (s->line->count >= 12) {
    s->stats->balked++;
    free(c->note);
    free(c);
  } else {
    struct teller *t = free_teller();
    if (t != NULL)
      start_service(s, t, c);
    else
      line_push(s->line, c);
  }
  if (s->arrivals_left-- > 0) {
    struct customer *n = malloc(sizeof *n);
    char note[40];
    n->id = id + 1;
    n->arrived = s->now + 1 + draw(s, 6);
    n->service_time = 3 + draw(s, 12);
    n->teller = NULL;
    n->stats = s->stats;
    n->waiting_in = NULL;
    n->greet = greeters[draw(s, 3)];
    snprintf(note, sizeof note, "needs %d min", n->service_time);
    n->note = strdup(note);
    push_event(s, n->arrived, on_arrival, n);
  }
}

static void run(struct sim *s) {
  while (s->size > 0) {
    struct event e = pop_event(s);
    s->now = e.time;
    e.handler(s, &e);
    s->handled++;
  }
}

int main(void) {
  struct stats stats;
  memset(&stats, 0, sizeof stats);
  struct line waiting = {NULL, 0, 0, 2, "main hall"};
  waiting.slots = malloc(2 * sizeof *waiting.slots);
  struct sim *s = calloc(1, sizeof *s);
  s->line = &waiting;
  s->stats = &stats;
  s->random = 2024;
  s->arrivals_left = 600;

  struct customer *first = malloc(sizeof *first);
  first->id = 1;
  first->arrived = 0;
  first->service_time = 5;
  first->teller = NULL;
  first->stats = &stats;
  first->waiting_in = NULL;
  first->greet = greeters[1];
  first->note = strdup("opens the day");
  push_event(s, 0, on_arrival, first);

  run(s);

  strcpy(stats.busiest, tellers[0].served >= tellers[1].served ? tellers[0].name : tellers[1].name);
  printf("%ld served, %ld balked, mean wait %.3f, longest %ld, busiest %s\n", stats.served,
         stats.balked, stats.served ? (double)stats.total_wait / stats.served : 0.0,
         stats.longest_wait, stats.busiest);
  printf("%s: %ld, %s: %ld, greeted %d, events %ld, line capacity %d (%s)\n", tellers[0].name,
         tellers[0].served, tellers[1].name, tellers[1].served, total_greeted, s->handled,
         waiting.capacity, waiting.label);
  free(waiting.slots);
  free(s->heap);
  free(s);
  return 0;
}
