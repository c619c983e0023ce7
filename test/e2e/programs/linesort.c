/* linesort.c - sorts the lines of standard input and prints each distinct line with its count.
 * No checkpoint pragma anywhere: built with c3cc it must behave exactly like any other build.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_lines(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void) {
  size_t cap = 16;
  char *line = malloc(cap);
  char **lines = NULL;
  size_t count = 0, room = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) != -1) {
    if (len > 0 && line[len - 1] == '\n') line[len - 1] = '\0';
    if (count == room) {
      room = room ? room * 2 : 64;
      lines = realloc(lines, room * sizeof *lines);
    }
    lines[count++] = strdup(line);
  }
  free(line);
  qsort(lines, count, sizeof *lines, compare_lines);
  for (size_t i = 0; i < count;) {
    size_t j = i;
    while (j < count && strcmp(lines[j], lines[i]) == 0) j++;
    printf("%4zu %s\n", j - i, lines[i]);
    i = j;
  }
  for (size_t i = 0; i < count; i++) free(lines[i]);
  free(lines);
  return 0;
}
