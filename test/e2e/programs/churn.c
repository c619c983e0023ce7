/* churn.c - a cache of variable-sized records under constant turnover.
 *
 * Records live in hash buckets (a global array of list heads) and in one global LRU list; the
 * cache evicts the least recently used records, frees them and allocates new ones of other
 * sizes, so the allocator keeps reusing freed memory. A global table of "pinned" records points
 * into the heap as well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 53
#define PINNED 16

struct record {
  unsigned key;
  unsigned uses;
  struct record *bucket_next;
  struct record *lru_prev, *lru_next;
  size_t len;
  char payload[]; /* len bytes, a pattern derived from the key */
};

static struct record *buckets[BUCKETS];
static struct record *lru_head, *lru_tail; /* head: most recent */
static struct record *pinned[PINNED];
static size_t live_records, live_bytes;
static unsigned long evictions, lookups, misses;

static unsigned long rng = 0x2545F4914F6CDD1DUL;

static unsigned rnd(unsigned limit) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (unsigned)((rng * 2685821657736338717UL) >> 33) % limit;
}

static void fill_payload(struct record *r) {
  for (size_t i = 0; i < r->len; i++) r->payload[i] = (char)('a' + (r->key * 31 + i * 7) % 26);
}

static int payload_intact(const struct record *r) {
  for (size_t i = 0; i < r->len; i++)
    if (r->payload[i] != (char)('a' + (r->key * 31 + i * 7) % 26)) return 0;
  return 1;
}

static void lru_unlink(struct record *r) {
  if (r->lru_prev) r->lru_prev->lru_next = r->lru_next; else lru_head = r->lru_next;
  if (r->lru_next) r->lru_next->lru_prev = r->lru_prev; else lru_tail = r->lru_prev;
  r->lru_prev = r->lru_next = NULL;
}

static void lru_push_front(struct record *r) {
  r->lru_prev = NULL;
  r->lru_next = lru_head;
  if (lru_head) lru_head->lru_prev = r; else lru_tail = r;
  lru_head = r;
}

static int is_pinned(const struct record *r) {
  for (int i = 0; i < PINNED; i++)
    if (pinned[i] == r) return 1;
  return 0;
}

static void evict_one(void) {
  struct record *victim = lru_tail;
  while (victim != NULL && is_pinned(victim)) victim = victim->lru_prev;
  if (victim == NULL) return;
  struct record **link = &buckets[victim->key % BUCKETS];
  while (*link != victim) link = &(*link)->bucket_next;
  *link = victim->bucket_next;
  lru_unlink(victim);
  live_records--;
  live_bytes -= victim->len;
  evictions++;
  free(victim);
  if (evictions % 1500 == 0) {
    printf("  %lu evictions, %zu records live\n", evictions, live_records);
#pragma ccc_checkpoint force
  }
}

static struct record *lookup(unsigned key) {
  lookups++;
  for (struct record *r = buckets[key % BUCKETS]; r != NULL; r = r->bucket_next)
    if (r->key == key) {
      lru_unlink(r);
      lru_push_front(r);
      r->uses++;
      return r;
    }
  misses++;
  while (live_bytes > 60000) evict_one();
  size_t len = 16 + rnd(400);
  struct record *r = malloc(sizeof *r + len);
  if (r == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  r->key = key;
  r->uses = 1;
  r->len = len;
  fill_payload(r);
  r->bucket_next = buckets[key % BUCKETS];
  buckets[key % BUCKETS] = r;
  lru_push_front(r);
  live_records++;
  live_bytes += len;
  return r;
}

/* Occasionally a record grows in place or moves: realloc, then relink every pointer to it. */
static struct record *grow(struct record *r) {
  struct record *old_address = r;
  size_t extra = 8 + rnd(64);
  struct record *g = realloc(r, sizeof *g + r->len + extra);
  if (g == NULL) return r;
  live_bytes += extra;
  g->len += extra;
  fill_payload(g);
  if (g != old_address) {
    struct record **link = &buckets[g->key % BUCKETS];
    while (*link != old_address) link = &(*link)->bucket_next;
    *link = g;
    if (g->lru_prev) g->lru_prev->lru_next = g; else lru_head = g;
    if (g->lru_next) g->lru_next->lru_prev = g; else lru_tail = g;
    for (int i = 0; i < PINNED; i++)
      if (pinned[i] == old_address) pinned[i] = g;
  }
  return g;
}

static unsigned long verify(void) {
  unsigned long sum = 0;
  size_t count = 0, bytes = 0;
  for (int b = 0; b < BUCKETS; b++)
    for (struct record *r = buckets[b]; r != NULL; r = r->bucket_next) {
      if (!payload_intact(r)) printf("record %u is damaged\n", r->key);
      sum += (unsigned long)r->key * r->uses + r->len;
      count++;
      bytes += r->len;
    }
  size_t in_lru = 0;
  for (struct record *r = lru_head; r != NULL; r = r->lru_next) in_lru++;
  if (count != live_records || bytes != live_bytes || in_lru != live_records)
    printf("inconsistent: %zu/%zu records, %zu/%zu bytes, %zu in lru\n", count, live_records, bytes, live_bytes, in_lru);
  return sum;
}

int main(void) {
  for (int round = 1; round <= 12; round++) {
    for (int i = 0; i < 2500; i++) {
      unsigned key = rnd(100) < 70 ? rnd(300) : 1000 + rnd(5000);
      struct record *r = lookup(key);
      if (rnd(50) == 0) r = grow(r);
      if (rnd(200) == 0) pinned[rnd(PINNED)] = r;
    }
    unsigned long sum = verify();
    int pins = 0;
    for (int i = 0; i < PINNED; i++) pins += pinned[i] != NULL;
    printf("round %2d: %zu records, %zu bytes, %lu evictions, %lu/%lu misses, %d pinned, sum %lu\n", round,
           live_records, live_bytes, evictions, misses, lookups, pins, sum);
    if (round % 2 == 0) {
#pragma ccc_checkpoint force
    }
    if (round == 6) {
      /* drop everything that is not pinned, then go on */
      while (live_records > 0 && lru_tail != NULL) {
        size_t before = live_records;
        evict_one();
        if (live_records == before) break;
      }
      printf("flushed: %zu records left\n", live_records);
    }
  }
  unsigned long pinned_sum = 0;
  for (int i = 0; i < PINNED; i++)
    if (pinned[i] != NULL) pinned_sum += pinned[i]->key + pinned[i]->len;
  printf("pinned sum %lu\n", pinned_sum);
  while (lru_head != NULL) {
    struct record *r = lru_head;
    lru_unlink(r);
    free(r);
  }
  return 0;
}
