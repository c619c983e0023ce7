// Files across restarts: a log written every step through a FILE * in a global, an input read
// line by line through a FILE * in a heap record and byte by byte through a descriptor kept in
// the heap, a journal written through a descriptor in a global, a notes file opened for
// appending and closed every third step, an events file kept open for appending, and stdout
// kept in a variable (17 checkpoints).
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct reader {
  FILE *in;
  int bytes_fd;
  long lines;
  char line[128];
};

static FILE *log_file;
static int journal_fd = -1;
static FILE *out;
static FILE *events;

static void note(const char *path, int step, long sum) {
  FILE *f = fopen(path, "a");
  if (!f) {
    perror(path);
    exit(1);
  }
  fprintf(f, "step %d: sum so far %ld\n", step, sum);
  fclose(f);
}

int main(int argc, char **argv) {
  const char *input = argc > 1 ? argv[1] : "filelog.input";
  out = stdout;
  log_file = fopen("log.txt", "w");
  events = fopen("events.txt", "a");
  struct reader *r = malloc(sizeof *r);
  r->in = fopen(input, "r");
  r->bytes_fd = open(input, O_RDONLY);
  r->lines = 0;
  journal_fd = open("journal.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!log_file || !events || !r->in || r->bytes_fd < 0 || journal_fd < 0) {
    perror("open");
    return 1;
  }
  long sum = 0;
  for (int step = 1; fgets(r->line, sizeof r->line, r->in); ++step) {
    r->lines++;
    int v = atoi(r->line);
    sum += v;
    fprintf(log_file, "step %d: value %d, sum %ld\n", step, v, sum);
    char record[32];
    int n = snprintf(record, sizeof record, "%08ld|", sum);
    if (write(journal_fd, record, (size_t)n) != n) return 1;
    char c = '?';
    if (read(r->bytes_fd, &c, 1) != 1) c = '$';
    fprintf(out, "step %d: value %d, byte '%c'\n", step, v, c == '\n' ? '/' : c);
    if (step % 3 == 0) note("notes.txt", step, sum);
    if (v % 2) fprintf(events, "odd value %d at step %d\n", v, step);
#pragma ccc_checkpoint force
  }
  fprintf(log_file, "%ld lines, sum %ld\n", r->lines, sum);
  fclose(log_file);
  fclose(events);
  close(journal_fd);
  fclose(r->in);
  close(r->bytes_fd);
  printf("done: %ld lines, sum %ld\n", r->lines, sum);
  free(r);
  return 0;
}
