/* start_env.h - the environment a test program's process was started with.
 *
 * Not getenv: a c3 restart gives the program the environment of the first run, and the e2e
 * harness sets some variables for the restart only (--restart-env). /proc/self/environ holds
 * what exec received, NUL-separated. */
#ifndef C3_E2E_START_ENV_H
#define C3_E2E_START_ENV_H

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Copies the value of `name` (at most capacity - 1 bytes) to `value`; 0 if it was not set. Read
 * in chunks: an entry's characters are compared with "name=" until they differ, then the rest
 * of the entry is the value. */
static int start_env(const char *name, char *value, size_t capacity) {
  int fd = open("/proc/self/environ", O_RDONLY);
  if (fd < 0) return 0;
  const size_t length = strlen(name);
  size_t matched = 0, taken = 0; /* matched: of the entry so far; length + 2: it differs */
  int found = 0;
  char chunk[4096];
  ssize_t got;
  while (!found && (got = read(fd, chunk, sizeof chunk)) > 0) {
    for (ssize_t i = 0; i < got && !found; ++i) {
      const char c = chunk[i];
      if (c == '\0') {
        found = matched == length + 1;
        if (!found) matched = taken = 0;
      } else if (matched == length + 1) {
        if (taken + 1 < capacity) value[taken++] = c;
      } else if (matched < length ? c == name[matched] : matched == length && c == '=') {
        ++matched;
      } else {
        matched = length + 2;
      }
    }
  }
  close(fd);
  if (found && capacity > 0) value[taken] = '\0';
  return found;
}

#endif
