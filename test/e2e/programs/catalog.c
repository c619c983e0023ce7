/* catalog.c - builds a parts catalogue whose entry names are formatted with asprintf(). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct part {
  char *code;  /* from asprintf */
  char *title; /* from asprintf */
  double weight;
};

static const char *const families[] = {"bracket", "hinge", "flange", "spacer", "clamp"};

int main(void) {
  struct part *parts = NULL;
  size_t count = 0;
  for (int batch = 1; batch <= 8; batch++) {
    parts = realloc(parts, (count + 25) * sizeof *parts);
    for (int i = 0; i < 25; i++) {
      struct part *p = &parts[count++];
      const char *family = families[(batch * 7 + i) % 5];
      p->weight = 0.125 * ((batch * 31 + i * 17) % 97) + 1.0;
      if (asprintf(&p->code, "%c%c-%03d-%02d", family[0] - 32, family[1] - 32, batch * 100 + i, i % 7) < 0 ||
          asprintf(&p->title, "%s, %.3f kg, batch %d", family, p->weight, batch) < 0) {
        fprintf(stderr, "out of memory\n");
        return 1;
      }
    }
    printf("batch %d: %zu parts, newest %s (%s)\n", batch, count, parts[count - 1].code, parts[count - 1].title);
#pragma ccc_checkpoint force
  }
  double heaviest = 0;
  size_t which = 0;
  for (size_t i = 0; i < count; i++)
    if (parts[i].weight > heaviest) {
      heaviest = parts[i].weight;
      which = i;
    }
  printf("heaviest: %s, %s\n", parts[which].code, parts[which].title);
  printf("first: %s, %s\n", parts[0].code, parts[0].title);
  for (size_t i = 0; i < count; i++) {
    free(parts[i].code);
    free(parts[i].title);
  }
  free(parts);
  return 0;
}
