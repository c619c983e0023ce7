// track-files: the calls that open and close files go to the runtime, naming their line; a FILE *
// handed to libc is translated (__c3_stream); stdin/stdout/stderr read into variables become
// their slots, passed straight to libc they stay glibc's. Function pointers to the renamed calls
// keep their types. The run test keeps a log open across a checkpoint and a restart.
//
// C3-RUN: after-commit:1
// C3-RUN: site:2

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

// CHECK-LABEL: static FILE *(*opener)(const char *, const char *) = ((__typeof__(fopen) *)__c3_fopen);
static FILE *(*opener)(const char *, const char *) = fopen;
static FILE *log_file;
static FILE *sink;
// A libc function taking a FILE *, as a pointer: to a thunk that translates the FILE *.
// CHECK-LABEL: static int __c3_thunk_fputc(int __c3_a0, FILE *__c3_a1) { return fputc(__c3_a0, __c3_stream(__c3_a1)); }
// CHECK-NEXT: static int (*put)(int, FILE *) = __c3_thunk_fputc;
static int (*put)(int, FILE *) = fputc;

// CHECK-LABEL: static void say(FILE *f, const char *text) {
// CHECK-NEXT: fputs(text, __c3_stream(f));
// CHECK-NEXT: fputc('\n', __c3_stream(f));
// CHECK-NEXT: fflush(__c3_stream(f));
static void say(FILE *f, const char *text) {
  fputs(text, f);
  fputc('\n', f);
  fflush(f);
}

// CHECK-LABEL: int __c3_user_main(void) {{.*}}
// CHECK-NEXT: sink = ((__typeof__(stdout))&__c3_streams[1]);
// CHECK-NEXT: log_file = (__c3_io_site = "track_files.c:[[#@LINE+8]]", __c3_fopen("track_files.log", "w"));
// CHECK-NEXT: int fd = (__c3_io_site = "track_files.c:[[#@LINE+8]]", __c3_open("track_files.bin", 01 | 0100 | 01000, 0644));
// CHECK-NEXT: fprintf(stderr, "{{.*}}");
// CHECK-NEXT: fprintf(__c3_stream(log_file ? log_file : sink), "opened\n");
// CHECK: (__c3_io_site = "track_files.c:{{[0-9]+}}", __c3_fclose(log_file));
// CHECK-NEXT: (__c3_io_site = "track_files.c:{{[0-9]+}}", __c3_close(fd));
int main(void) {
  sink = stdout;
  log_file = fopen("track_files.log", "w");
  int fd = open("track_files.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  fprintf(stderr, "");
  fprintf(log_file ? log_file : sink, "opened\n");
  for (int i = 0; i < 3; ++i) {
    say(log_file, "step");
    if (write(fd, &i, sizeof i) != sizeof i) return 1;
#pragma ccc_checkpoint force
    say(sink, "after a checkpoint");
  }
  put('.', log_file);
  put('\n', log_file);
  fclose(log_file);
  close(fd);
  FILE *again = opener("track_files.log", "r");
  int c, lines = 0;
  while ((c = fgetc(again)) != EOF) lines += c == '\n';
  fclose(again);
  printf("%d lines in the log\n", lines);
  return 0;
}
