/* timed_run - run a command and report its wall time, CPU time and peak resident memory.
 *
 *   timed_run [-o RESULT] [-e STDERR_COPY] [-m TEXT]... -- COMMAND [ARG]...
 *
 * The command's stdin and stdout are inherited. Its stderr is read through a pipe and passed on
 * to our stderr (or to STDERR_COPY with -e) line by line, so that for every -m TEXT the time of the
 * first stderr line containing TEXT can be recorded (the moment a restart finished, say).
 *
 * One line goes to RESULT (default: stdout), as key=value pairs:
 *   wall=S user=S sys=S maxrss_kib=N status=N mark1=S mark2=S ...
 * Times are seconds since the fork; a mark that never appeared is "-". status is the exit
 * status, or 128+signal. CPU times and peak RSS come from wait4() of the command.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_MARKS = 8 };

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double timeval_seconds(struct timeval tv) {
  return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void usage(void) {
  fprintf(stderr, "usage: timed_run [-o RESULT] [-e STDERR_COPY] [-m TEXT]... -- COMMAND [ARG]...\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *result_path = NULL;
  const char *stderr_copy_path = NULL;
  const char *marks[MAX_MARKS];
  int mark_count = 0;
  int opt;
  while ((opt = getopt(argc, argv, "+o:e:m:")) != -1) {
    if (opt == 'o') result_path = optarg;
    else if (opt == 'e') stderr_copy_path = optarg;
    else if (opt == 'm' && mark_count < MAX_MARKS) marks[mark_count++] = optarg;
    else usage();
  }
  if (optind >= argc) usage();

  FILE *stderr_copy = stderr;
  if (stderr_copy_path != NULL && (stderr_copy = fopen(stderr_copy_path, "w")) == NULL) {
    perror(stderr_copy_path);
    return 2;
  }
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    perror("pipe");
    return 2;
  }

  double start = now_seconds();
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 2;
  }
  if (child == 0) {
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execvp(argv[optind], argv + optind);
    fprintf(stderr, "timed_run: cannot run %s: %s\n", argv[optind], strerror(errno));
    _exit(127);
  }
  close(pipe_fds[1]);

  double mark_time[MAX_MARKS];
  for (int i = 0; i < MAX_MARKS; ++i) mark_time[i] = -1.0;
  FILE *child_stderr = fdopen(pipe_fds[0], "r");
  char *line = NULL;
  size_t capacity = 0;
  ssize_t length;
  while ((length = getline(&line, &capacity, child_stderr)) > 0) {
    double t = now_seconds() - start;
    for (int i = 0; i < mark_count; ++i)
      if (mark_time[i] < 0 && strstr(line, marks[i]) != NULL) mark_time[i] = t;
    fwrite(line, 1, (size_t)length, stderr_copy);
    fflush(stderr_copy);
  }
  free(line);
  fclose(child_stderr);

  int status = 0;
  struct rusage usage_of_child;
  while (wait4(child, &status, 0, &usage_of_child) < 0) {
    if (errno != EINTR) {
      perror("wait4");
      return 2;
    }
  }
  double wall = now_seconds() - start;
  int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (stderr_copy != stderr) fclose(stderr_copy);

  FILE *result = stdout;
  if (result_path != NULL && (result = fopen(result_path, "w")) == NULL) {
    perror(result_path);
    return 2;
  }
  fprintf(result, "wall=%.4f user=%.4f sys=%.4f maxrss_kib=%ld status=%d", wall,
          timeval_seconds(usage_of_child.ru_utime), timeval_seconds(usage_of_child.ru_stime),
          usage_of_child.ru_maxrss, exit_status);
  for (int i = 0; i < mark_count; ++i) {
    if (mark_time[i] < 0) fprintf(result, " mark%d=-", i + 1);
    else fprintf(result, " mark%d=%.4f", i + 1, mark_time[i]);
  }
  fprintf(result, "\n");
  if (result != stdout) fclose(result);
  return 0;
}
