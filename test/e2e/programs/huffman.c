/* huffman.c - Huffman-codes a generated text, decodes it again and checks the round trip.
 *
 * Tree nodes come from a pool allocated in chunks; a binary min-heap of node pointers builds the
 * tree; codes are assigned by a recursive walk into strdup'ed strings; the encoded bits go into
 * a buffer grown with realloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
  unsigned long weight;
  int symbol; /* -1 for inner nodes */
  struct node *zero, *one;
  int order;  /* creation order, breaks weight ties deterministically */
};

struct pool {
  struct node *chunks[64];
  int n_chunks;
  int used_in_last;
  int created;
};

enum { CHUNK = 32 };

static struct node *new_node(struct pool *p, unsigned long weight, int symbol) {
  if (p->n_chunks == 0 || p->used_in_last == CHUNK) {
    p->chunks[p->n_chunks++] = malloc(CHUNK * sizeof(struct node));
    p->used_in_last = 0;
  }
  struct node *n = &p->chunks[p->n_chunks - 1][p->used_in_last++];
  n->weight = weight;
  n->symbol = symbol;
  n->zero = n->one = NULL;
  n->order = p->created++;
  return n;
}

struct minheap {
  struct node **items;
  int size;
};

static int lighter(const struct node *a, const struct node *b) {
  return a->weight < b->weight || (a->weight == b->weight && a->order < b->order);
}

static void heap_push(struct minheap *h, struct node *n) {
  int i = h->size++;
  while (i > 0 && lighter(n, h->items[(i - 1) / 2])) {
    h->items[i] = h->items[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->items[i] = n;
}

static struct node *heap_pop(struct minheap *h) {
  struct node *top = h->items[0], *last = h->items[--h->size];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->size) break;
    if (c + 1 < h->size && lighter(h->items[c + 1], h->items[c])) c++;
    if (!lighter(h->items[c], last)) break;
    h->items[i] = h->items[c];
    i = c;
  }
  if (h->size > 0) h->items[i] = last;
  return top;
}

static char *codes[256];
static int longest_code;

static void assign_codes(const struct node *n, char *prefix, int depth) {
  if (n->symbol >= 0) {
    prefix[depth] = '\0';
    codes[n->symbol] = strdup(depth ? prefix : "0");
    if (depth > longest_code) longest_code = depth;
    if (depth >= 6) {
      printf("  deep code for '%c': %s\n", n->symbol, prefix);
#pragma ccc_checkpoint force
    }
    return;
  }
  prefix[depth] = '0';
  assign_codes(n->zero, prefix, depth + 1);
  prefix[depth] = '1';
  assign_codes(n->one, prefix, depth + 1);
}

struct bits {
  unsigned char *data;
  size_t count, capacity; /* in bits */
};

static void put_bit(struct bits *b, int bit) {
  if (b->count == b->capacity) {
    b->capacity = b->capacity ? b->capacity * 2 : 256;
    b->data = realloc(b->data, b->capacity / 8);
    memset(b->data + b->count / 8, 0, (b->capacity - b->count) / 8);
  }
  if (bit) b->data[b->count / 8] |= (unsigned char)(1u << (b->count % 8));
  b->count++;
}

static int get_bit(const struct bits *b, size_t i) { return (b->data[i / 8] >> (i % 8)) & 1; }

static char *make_text(size_t length) {
  static const char *const words[] = {"the", "quick", "brown", "fox", "jumps", "over", "lazy",
                                      "dog", "zephyr", "quiz", "vexing", "wizard", "jam", "a"};
  char *text = malloc(length + 16);
  size_t at = 0;
  unsigned long x = 1;
  while (at < length) {
    x = x * 1103515245UL + 12345UL;
    const char *w = words[(x >> 16) % (x % 3 == 0 ? 14 : 6)];
    size_t n = strlen(w);
    memcpy(text + at, w, n);
    at += n;
    text[at++] = (x >> 8) % 11 == 0 ? '\n' : ' ';
  }
  text[at] = '\0';
  return text;
}

int main(void) {
  char *text = make_text(60000);
  size_t length = strlen(text);
  unsigned long freq[256] = {0};
  for (size_t i = 0; i < length; i++) freq[(unsigned char)text[i]]++;

  struct pool pool = {{NULL}, 0, 0, 0};
  struct minheap heap = {malloc(256 * sizeof(struct node *)), 0};
  for (int s = 0; s < 256; s++)
    if (freq[s]) heap_push(&heap, new_node(&pool, freq[s], s));
  int symbols = heap.size;
  while (heap.size > 1) {
    struct node *a = heap_pop(&heap);
    struct node *b = heap_pop(&heap);
    struct node *parent = new_node(&pool, a->weight + b->weight, -1);
    parent->zero = a;
    parent->one = b;
    heap_push(&heap, parent);
  }
  struct node *root = heap_pop(&heap);
  char prefix[257];
  assign_codes(root, prefix, 0);
  printf("%d symbols, %d nodes in %d chunks, longest code %d bits\n", symbols, pool.created,
         pool.n_chunks, longest_code);

  struct bits bits = {NULL, 0, 0};
  for (size_t i = 0; i < length; i++) {
    for (const char *c = codes[(unsigned char)text[i]]; *c; c++) put_bit(&bits, *c == '1');
    if (i % 15000 == 14999) {
      printf("encoded %zu chars into %zu bits (buffer %zu bytes)\n", i + 1, bits.count, bits.capacity / 8);
#pragma ccc_checkpoint force
    }
  }

  char *decoded = malloc(length + 1);
  size_t out = 0;
  const struct node *n = root;
  for (size_t i = 0; i < bits.count; i++) {
    n = get_bit(&bits, i) ? n->one : n->zero;
    if (n->symbol >= 0) {
      decoded[out++] = (char)n->symbol;
      n = root;
      if (out % 20000 == 0) {
#pragma ccc_checkpoint force
        printf("decoded %zu chars\n", out);
      }
    }
  }
  decoded[out] = '\0';
  printf("round trip %s: %zu -> %zu bits (%.2f%% of 8-bit), %zu chars back\n",
         strcmp(decoded, text) == 0 ? "ok" : "FAILED", length, bits.count,
         100.0 * (double)bits.count / (8.0 * (double)length), out);
  for (int s = 'a'; s <= 'z'; s += 5)
    if (codes[s]) printf("  '%c' x%lu -> %s\n", s, freq[s], codes[s]);

  for (int s = 0; s < 256; s++) free(codes[s]);
  for (int c = 0; c < pool.n_chunks; c++) free(pool.chunks[c]);
  free(heap.items);
  free(bits.data);
  free(decoded);
  free(text);
  return 0;
}
