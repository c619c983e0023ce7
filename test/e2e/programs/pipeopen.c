// A pipe open at a checkpoint pragma. Without a restart callback c3 refuses those checkpoints,
// once per pragma, naming the call that opened the pipe; once it is closed, checkpoints are
// taken again (4). With -DREOPEN_IN_CALLBACK the program registers a c3_on_restart callback
// that opens a new pipe, and every pragma checkpoints (10).
#include <stdio.h>
#include <unistd.h>
#ifdef __C3__
#include <c3/c3.h>
#endif

static int pipe_fds[2];

#if defined(REOPEN_IN_CALLBACK) && defined(__C3__)
static void reopen_pipe(void *arg) {
  int *fds = arg;
  if (pipe(fds) != 0) perror("pipe");
}
#endif

int main(void) {
  if (pipe(pipe_fds) != 0) return 1;
#if defined(REOPEN_IN_CALLBACK) && defined(__C3__)
  c3_on_restart(reopen_pipe, pipe_fds);
#endif
  long total = 0;
  for (int round = 1; round <= 6; ++round) {
    char c = (char)('a' + round);
    if (write(pipe_fds[1], &c, 1) != 1 || read(pipe_fds[0], &c, 1) != 1) return 1;
    total += c;
    printf("round %d through the pipe: %c, total %ld\n", round, c, total);
#pragma ccc_checkpoint force
  }
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  for (int round = 7; round <= 10; ++round) {
    total += round;
    printf("round %d without it: total %ld\n", round, total);
#pragma ccc_checkpoint force
  }
  return 0;
}
