/* argv.c - a tiny option parser whose results point straight into argv.
 *
 *   usage: argv [--name=NAME] [--repeat=N] [--sep=S] [-v] WORD...
 *
 * Options and words are kept as pointers into the argument strings (no copies): a table of
 * options on the heap, a linked list of words, and a global pointing at argv itself. The words
 * are then shuffled, joined and printed, many times over.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct option {
  const char *key;   /* points into argv[i], after the dashes */
  size_t key_len;
  const char *value; /* points into argv[i], after '=', or NULL */
};

struct word {
  const char *text; /* argv[i] */
  int index;
  struct word *next;
};

static char **program_args;
static int program_argc;
static const char *program_name;

static const char *option_value(const struct option *opts, int n, const char *key, const char *fallback) {
  for (int i = 0; i < n; i++)
    if (strlen(key) == opts[i].key_len && strncmp(opts[i].key, key, opts[i].key_len) == 0)
      return opts[i].value ? opts[i].value : "";
  return fallback;
}

static unsigned long digest(const char *s, unsigned long h) {
  while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211UL;
  return h;
}

static void show_round(int round, struct word **order, int n, const char *sep, const char *name) {
  printf("%s round %d:", name, round);
  for (int i = 0; i < n; i++) printf("%s%s", i ? sep : " ", order[i]->text);
  printf("\n");
  if (round % 3 == 0) {
#pragma ccc_checkpoint force
  }
}

int main(int argc, char **argv) {
  program_args = argv;
  program_argc = argc;
  program_name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

  struct option *opts = malloc((size_t)argc * sizeof *opts);
  int n_opts = 0;
  struct word *words = NULL, **tail = &words;
  int n_words = 0;
  for (int i = 1; i < argc; i++) {
    char *arg = argv[i];
    if (arg[0] == '-' && arg[1] != '\0') {
      const char *key = arg + (arg[1] == '-' ? 2 : 1);
      const char *eq = strchr(key, '=');
      opts[n_opts].key = key;
      opts[n_opts].key_len = eq ? (size_t)(eq - key) : strlen(key);
      opts[n_opts].value = eq ? eq + 1 : NULL;
      n_opts++;
    } else {
      struct word *w = malloc(sizeof *w);
      w->text = arg;
      w->index = i;
      w->next = NULL;
      *tail = w;
      tail = &w->next;
      n_words++;
    }
  }

  const char *name = option_value(opts, n_opts, "name", program_name);
  const char *sep = option_value(opts, n_opts, "sep", " ");
  int repeat = atoi(option_value(opts, n_opts, "repeat", "4"));
  int verbose = option_value(opts, n_opts, "v", NULL) != NULL;

  struct word **order = malloc((size_t)(n_words ? n_words : 1) * sizeof *order);
  int k = 0;
  for (struct word *w = words; w != NULL; w = w->next) order[k++] = w;

  unsigned long h = 14695981039346656037UL;
  for (int round = 1; round <= repeat; round++) {
    /* rotate by the round number, then swap pairs: a deterministic shuffle */
    for (int r = 0; r < round % (n_words ? n_words : 1); r++) {
      struct word *first = order[0];
      memmove(order, order + 1, (size_t)(n_words - 1) * sizeof *order);
      order[n_words - 1] = first;
    }
    for (int i = 0; i + 1 < n_words; i += 2)
      if ((digest(order[i]->text, round) & 1) != 0) {
        struct word *tmp = order[i];
        order[i] = order[i + 1];
        order[i + 1] = tmp;
      }
    show_round(round, order, n_words, sep, name);
    for (int i = 0; i < n_words; i++) h = digest(order[i]->text, h);
  }

  if (verbose) {
    for (int i = 0; i < n_opts; i++)
      printf("option %.*s = %s\n", (int)opts[i].key_len, opts[i].key, opts[i].value ? opts[i].value : "(none)");
    for (struct word *w = words; w != NULL; w = w->next)
      printf("word %d '%s' is argv[%d] '%s'\n", w->index, w->text, w->index, program_args[w->index]);
  }
  printf("%s: %d args, %d options, %d words, digest %016lx, last arg '%s'\n", program_name, program_argc,
         n_opts, n_words, h, program_args[program_argc - 1]);

  while (words != NULL) {
    struct word *next = words->next;
    free(words);
    words = next;
  }
  free(order);
  free(opts);
  return 0;
}
