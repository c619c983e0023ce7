// libc functions that hand the program memory it owns (and frees with free()) or grow memory the
// program allocated. The precompiler renames them to these versions, which use the c3 heap: the
// memory is then part of every checkpoint, and libc's realloc never sees a c3 heap block.
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "c3/c3_abi.h"

extern "C" {

// The ABI header spells FILE * as void * (it includes nothing); size_t is unsigned long here.
long __c3_getdelim(char **line, unsigned long *capacity, int delimiter, void *stream_arg) {
  FILE *stream = static_cast<FILE *>(stream_arg);
  if (line == nullptr || capacity == nullptr || stream == nullptr) {
    errno = EINVAL;
    return -1;
  }
  if (*line == nullptr) *capacity = 0;
  size_t length = 0;
  flockfile(stream);
  for (;;) {
    int c = getc_unlocked(stream);
    if (c == EOF) break;
    if (length + 2 > *capacity) {  // room for c and the terminating NUL
      size_t grown = *capacity < 120 ? 120 : *capacity * 2;
      char *bigger = static_cast<char *>(__c3_realloc(*line, grown));
      if (bigger == nullptr) {
        funlockfile(stream);
        errno = ENOMEM;
        return -1;
      }
      *line = bigger;
      *capacity = grown;
    }
    (*line)[length++] = char(c);
    if (c == delimiter) break;
  }
  funlockfile(stream);
  if (length == 0) {
    // Like glibc: the buffer exists (and is terminated) even at end of file.
    if (*line == nullptr) {
      *line = static_cast<char *>(__c3_malloc(120));
      if (*line == nullptr) return -1;
      *capacity = 120;
    }
    (*line)[0] = '\0';
    return -1;
  }
  (*line)[length] = '\0';
  return long(length);
}

long __c3_getline(char **line, unsigned long *capacity, void *stream) {
  return __c3_getdelim(line, capacity, '\n', stream);
}

int __c3_vasprintf(char **out, const char *format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int length = vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (length < 0) return -1;
  char *text = static_cast<char *>(__c3_malloc(size_t(length) + 1));
  if (text == nullptr) return -1;
  vsnprintf(text, size_t(length) + 1, format, args);
  *out = text;
  return length;
}

int __c3_asprintf(char **out, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = __c3_vasprintf(out, format, args);
  va_end(args);
  return length;
}

char *__c3_realpath(const char *path, char *resolved) {
  if (resolved != nullptr) return realpath(path, resolved);
  char buffer[PATH_MAX];
  if (realpath(path, buffer) == nullptr) return nullptr;
  return __c3_strdup(buffer);
}

char *__c3_getcwd(char *buffer, unsigned long size) {
  if (buffer != nullptr) return getcwd(buffer, size);
  char here[PATH_MAX];
  if (getcwd(here, sizeof here) == nullptr) return nullptr;
  size_t need = strlen(here) + 1;
  if (size != 0 && size < need) {
    errno = ERANGE;
    return nullptr;
  }
  char *copy = static_cast<char *>(__c3_malloc(size != 0 ? size : need));
  if (copy != nullptr) memcpy(copy, here, need);
  return copy;
}

char *__c3_get_current_dir_name(void) { return __c3_getcwd(nullptr, 0); }

}  // extern "C"
