/* queens.c - backtracking and tree recursion.
 *
 * Counts the placements of n non-attacking queens for a few board sizes, then builds a binary
 * search tree from pseudo-random keys by recursive insertion and walks it depth first.
 *
 *   usage: queens [largest board]       (default 9)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_QUEENS 12

struct board {
  int n;
  int column[MAX_QUEENS]; /* column[row]: where the queen of that row stands */
  unsigned long solutions;
  unsigned long nodes;
  char first[128]; /* the first solution, as text */
};

static int attacked(const struct board *b, int row, int col) {
  for (int r = 0; r < row; r++) {
    int d = b->column[r] - col;
    if (d == 0 || d == row - r || d == r - row) return 1;
  }
  return 0;
}

static void remember_solution(struct board *b) {
  char *p = b->first;
  for (int r = 0; r < b->n; r++) p += sprintf(p, "%c%d", 'a' + b->column[r], r + 1);
}

static void solve(struct board *b, int row) {
  if (row == b->n) {
    if (b->solutions++ == 0) remember_solution(b);
    return;
  }
  for (int col = 0; col < b->n; col++) {
    if (attacked(b, row, col)) continue;
    b->column[row] = col;
    b->nodes++;
    if (row == b->n - 3 && b->nodes % 300 == 0) {
      printf("  n=%d: %lu nodes, %lu solutions so far, row %d at %c\n", b->n, b->nodes,
             b->solutions, row, 'a' + col);
#pragma ccc_checkpoint force
    }
    solve(b, row + 1);
  }
}

struct node {
  unsigned key;
  unsigned hits;
  struct node *left, *right;
};

static unsigned long rng_state = 12345;

static unsigned next_key(void) {
  rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
  return (unsigned)(rng_state >> 33) % 5000;
}

static unsigned long inserted;

static struct node *insert(struct node *t, unsigned key, int depth) {
  if (t == NULL) {
    t = malloc(sizeof *t);
    if (t == NULL) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
    t->key = key;
    t->hits = 1;
    t->left = t->right = NULL;
    if (++inserted % 250 == 0) {
      printf("  inserted %lu keys, this one %u at depth %d\n", inserted, key, depth);
#pragma ccc_checkpoint force
    }
    return t;
  }
  if (key < t->key)
    t->left = insert(t->left, key, depth + 1);
  else if (key > t->key)
    t->right = insert(t->right, key, depth + 1);
  else
    t->hits++;
  return t;
}

struct walk_stats {
  unsigned long nodes;
  unsigned long weighted;
  int height;
  unsigned last_key;
  int sorted;
};

static void walk(const struct node *t, int depth, struct walk_stats *ws) {
  if (t == NULL) return;
  if (depth > ws->height) ws->height = depth;
  walk(t->left, depth + 1, ws);
  if (ws->nodes > 0 && t->key <= ws->last_key) ws->sorted = 0;
  ws->last_key = t->key;
  ws->nodes++;
  ws->weighted += (unsigned long)t->key * (unsigned long)(depth + 1) * t->hits;
  if (depth == 9 && ws->nodes % 40 == 0) {
#pragma ccc_checkpoint force
    printf("  walk: %lu nodes visited, key %u\n", ws->nodes, t->key);
  }
  walk(t->right, depth + 1, ws);
}

static int count_leaves(const struct node *t) {
  if (t == NULL) return 0;
  if (t->left == NULL && t->right == NULL) return 1;
  return count_leaves(t->left) + count_leaves(t->right);
}

static void free_tree(struct node *t) {
  if (t == NULL) return;
  free_tree(t->left);
  free_tree(t->right);
  free(t);
}

int main(int argc, char **argv) {
  int largest = argc > 1 ? atoi(argv[1]) : 9;
  if (largest < 4 || largest > MAX_QUEENS) {
    fprintf(stderr, "board size must be 4..%d\n", MAX_QUEENS);
    return 2;
  }

  for (int n = 4; n <= largest; n++) {
    struct board b;
    memset(&b, 0, sizeof b);
    b.n = n;
    solve(&b, 0);
    printf("%2d queens: %lu solutions, %lu nodes, first %s\n", n, b.solutions, b.nodes, b.first);
  }

  struct node *root = NULL;
  for (int i = 0; i < 3000; i++) root = insert(root, next_key(), 0);

  struct walk_stats ws = {0, 0, 0, 0, 1};
  walk(root, 0, &ws);
  printf("tree: %lu distinct keys of %lu inserted, height %d, %d leaves, weighted sum %lu, %s\n",
         ws.nodes, inserted, ws.height, count_leaves(root), ws.weighted,
         ws.sorted ? "in order" : "NOT in order");
  free_tree(root);
  return 0;
}
