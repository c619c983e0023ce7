/* wordfreq.c - word frequencies of generated text.
 *
 * Generates sentences from a small vocabulary into a growing text buffer, splits it into words,
 * counts them in a hash table that doubles when it fills, and prints the most frequent words
 * and the longest sentence.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct strbuf {
  char *data;
  size_t len, cap;
};

static void sb_reserve(struct strbuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 16;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *p = realloc(sb->data, cap);
  if (p == NULL) {
    perror("realloc");
    exit(1);
  }
  sb->data = p;
  sb->cap = cap;
}

static void sb_append(struct strbuf *sb, const char *s) {
  size_t n = strlen(s);
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n + 1);
  sb->len += n;
}

static void sb_append_char(struct strbuf *sb, char c) {
  sb_reserve(sb, 1);
  sb->data[sb->len++] = c;
  sb->data[sb->len] = '\0';
}

struct entry {
  char *word;
  int count;
  int first_seen;
};

struct table {
  struct entry *slots;
  size_t used, size;
  int resizes;
};

static unsigned long hash_word(const char *s) {
  unsigned long h = 5381;
  while (*s) h = h * 33 + (unsigned char)*s++;
  return h;
}

static struct entry *find_slot(struct entry *slots, size_t size, const char *word) {
  size_t i = hash_word(word) & (size - 1);
  while (slots[i].word != NULL && strcmp(slots[i].word, word) != 0) i = (i + 1) & (size - 1);
  return &slots[i];
}

static void grow_table(struct table *t) {
  size_t size = t->size ? t->size * 2 : 8;
  struct entry *slots = calloc(size, sizeof *slots);
  for (size_t i = 0; i < t->size; i++)
    if (t->slots[i].word != NULL) *find_slot(slots, size, t->slots[i].word) = t->slots[i];
  free(t->slots);
  t->slots = slots;
  t->size = size;
  t->resizes++;
  printf("table grown to %zu slots (%zu words)\n", size, t->used);
#pragma ccc_checkpoint force
}

static void count_word(struct table *t, const char *word, int position) {
  if (4 * (t->used + 1) > 3 * t->size) grow_table(t);
  struct entry *e = find_slot(t->slots, t->size, word);
  if (e->word == NULL) {
    e->word = strdup(word);
    e->first_seen = position;
    t->used++;
  }
  e->count++;
}

static const char *const vocabulary[] = {
    "the",    "a",      "river",    "stone",     "under",  "quietly", "bright",  "map",
    "harbour", "lantern", "carries", "forgets",  "seven",  "old",     "winter",  "glass",
    "north",  "between", "orchard", "listens",   "paper",  "slow",    "and",     "of",
    "machine", "garden", "remembers", "thread",  "salt",   "copper",  "evening", "window"};
enum { VOCABULARY_SIZE = sizeof vocabulary / sizeof vocabulary[0] };

static unsigned long seed = 88172645463325252UL;

static unsigned long xorshift(void) {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return seed;
}

/* Skewed choice, so frequencies differ. */
static const char *pick_word(void) {
  unsigned long r = xorshift() % 1000;
  unsigned long k = r * r / 1000 * VOCABULARY_SIZE / 1000;
  return vocabulary[k];
}

static char *make_sentence(void) {
  struct strbuf sb = {NULL, 0, 0};
  int words = 3 + (int)(xorshift() % 14);
  for (int i = 0; i < words; i++) {
    const char *w = pick_word();
    if (i > 0) sb_append_char(&sb, ' ');
    if (i == 0) {
      sb_append_char(&sb, (char)toupper((unsigned char)w[0]));
      sb_append(&sb, w + 1);
    } else {
      sb_append(&sb, w);
    }
  }
  sb_append_char(&sb, '.');
  return sb.data;
}

static int by_count(const void *a, const void *b) {
  const struct entry *x = a, *y = b;
  if (x->count != y->count) return y->count - x->count;
  return strcmp(x->word, y->word);
}

int main(void) {
  struct strbuf text = {NULL, 0, 0};
  char **sentences = NULL;
  size_t n_sentences = 0, sentences_cap = 0;

  for (int i = 0; i < 1500; i++) {
    char *s = make_sentence();
    if (n_sentences == sentences_cap) {
      sentences_cap = sentences_cap ? sentences_cap + sentences_cap / 2 : 4;
      sentences = realloc(sentences, sentences_cap * sizeof *sentences);
    }
    sentences[n_sentences++] = s;
    if (text.len > 0) sb_append_char(&text, ' ');
    sb_append(&text, s);
    if (i % 300 == 299) {
      fprintf(stderr, "wordfreq: %d sentences generated\n", i + 1);
      printf("%d sentences, %zu characters, buffer %zu\n", i + 1, text.len, text.cap);
#pragma ccc_checkpoint force
    }
  }

  struct table t = {NULL, 0, 0, 0};
  char *copy = strdup(text.data);
  int position = 0;
  char *rest = NULL;
  for (char *w = strtok_r(copy, " .", &rest); w != NULL; w = strtok_r(NULL, " .", &rest)) {
    for (char *p = w; *p; p++) *p = (char)tolower((unsigned char)*p);
    count_word(&t, w, position++);
    if (position % 4000 == 0) {
      printf("%d words counted, %zu distinct\n", position, t.used);
#pragma ccc_checkpoint force
    }
  }
  free(copy);
  fprintf(stderr, "wordfreq: %d words counted\n", position);

  struct entry *list = malloc(t.used * sizeof *list);
  size_t n = 0;
  for (size_t i = 0; i < t.size; i++)
    if (t.slots[i].word != NULL) list[n++] = t.slots[i];
  qsort(list, n, sizeof *list, by_count);
  printf("%d words, %zu distinct, %d resizes\n", position, n, t.resizes);
  for (size_t i = 0; i < n && i < 12; i++)
    printf("%-10s %5d  first at %d\n", list[i].word, list[i].count, list[i].first_seen);

  size_t longest = 0;
  for (size_t i = 1; i < n_sentences; i++)
    if (strlen(sentences[i]) > strlen(sentences[longest])) longest = i;
  char *shortened = strndup(sentences[longest], 40);
  printf("longest sentence #%zu (%zu chars): %s...\n", longest, strlen(sentences[longest]), shortened);
  free(shortened);

  for (size_t i = 0; i < n_sentences; i++) free(sentences[i]);
  free(sentences);
  for (size_t i = 0; i < t.size; i++) free(t.slots[i].word);
  free(t.slots);
  free(list);
  free(text.data);
  return 0;
}
