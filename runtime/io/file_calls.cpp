// The calls that open and close files, in the versions the precompiler renames the program's
// calls to: each does what libc does and keeps the table of open files (io/open_files.hpp)
// up to date. A stream is handed to the program as its slot's address; __c3_stream translates it
// back wherever the program passes a FILE * to libc.
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "c3/c3_abi.h"
#include "io/open_files.hpp"

using namespace c3;

namespace {

FILE *real(void *stream) { return static_cast<FILE *>(files::real_stream(stream)); }

// `close` undoes the opening when every slot is taken: as if the process had too many files open.
void *tracked_stream(FILE *opened, const char *call, const char *mode, bool memory,
                     int (*close)(FILE *)) {
  if (!opened) {
    files::take_site();
    return nullptr;
  }
  void *slot = files::add_stream(opened, call, mode, memory);
  if (!slot) close(opened);
  return slot;
}

void *tracked_stream(FILE *opened, const char *call, const char *mode) {
  return tracked_stream(opened, call, mode, false, fclose);
}

int tracked_descriptor(int fd, const char *call, int flags) {
  if (fd < 0)
    files::take_site();
  else
    files::add_descriptor(fd, call, flags);
  return fd;
}

// pipe, pipe2, socketpair: two descriptors from one call and one site.
int tracked_pair(int result, const int fds[2], const char *call, int flags0, int flags1) {
  if (result != 0) {
    files::take_site();
    return result;
  }
  const char *site = __c3_io_site;
  files::add_descriptor(fds[0], call, flags0);
  __c3_io_site = site;
  files::add_descriptor(fds[1], call, flags1);
  return result;
}

// open's mode argument is there only with O_CREAT or O_TMPFILE.
unsigned mode_argument(int flags, va_list args) {
  bool given = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
  return given ? va_arg(args, unsigned) : 0;
}

}  // namespace

extern "C" {

void *__c3_stream(void *stream) { return files::real_stream(stream); }

void *__c3_fopen(const char *path, const char *mode) {
  return tracked_stream(fopen(path, mode), "fopen", mode);
}

void *__c3_fdopen(int fd, const char *mode) {
  return tracked_stream(fdopen(fd, mode), "fdopen", mode);
}

void *__c3_freopen(const char *path, const char *mode, void *stream) {
  if (!files::is_opened_slot(stream)) {
    files::take_site();
    return freopen(path, mode, real(stream)) ? stream : nullptr;
  }
  FILE *reopened = freopen(path, mode, real(stream));
  if (!reopened) {
    files::stream_closed(stream);  // freopen closed it
    files::take_site();
    return nullptr;
  }
  files::stream_reopened(stream, reopened, mode);
  return stream;
}

int __c3_fclose(void *stream) {
  files::take_site();
  if (!files::is_opened_slot(stream))
    return fclose(real(stream));
  FILE *closing = real(stream);
  files::stream_closed(stream);
  return fclose(closing);
}

void *__c3_tmpfile(void) { return tracked_stream(tmpfile(), "tmpfile", "w+"); }

void *__c3_popen(const char *command, const char *type) {
  return tracked_stream(popen(command, type), "popen", type, false, pclose);
}

int __c3_pclose(void *stream) {
  files::take_site();
  if (!files::is_opened_slot(stream)) return pclose(real(stream));
  FILE *closing = real(stream);
  files::stream_closed(stream);
  return pclose(closing);
}

void *__c3_fmemopen(void *buffer, unsigned long size, const char *mode) {
  return tracked_stream(fmemopen(buffer, size, mode), "fmemopen", mode, true, fclose);
}

void *__c3_open_memstream(char **buffer, unsigned long *size) {
  return tracked_stream(open_memstream(buffer, size), "open_memstream", "w", true, fclose);
}

int __c3_open(const char *path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  unsigned mode = mode_argument(flags, args);
  va_end(args);
  return tracked_descriptor(open(path, flags, mode), "open", flags);
}

int __c3_openat(int dirfd, const char *path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  unsigned mode = mode_argument(flags, args);
  va_end(args);
  return tracked_descriptor(openat(dirfd, path, flags, mode), "openat", flags);
}

int __c3_creat(const char *path, unsigned mode) {
  return tracked_descriptor(creat(path, mode), "creat", O_CREAT | O_WRONLY | O_TRUNC);
}

int __c3_mkstemp(char *pattern) { return tracked_descriptor(mkstemp(pattern), "mkstemp", O_RDWR); }

int __c3_mkostemp(char *pattern, int flags) {
  return tracked_descriptor(mkostemp(pattern, flags), "mkostemp", O_RDWR | flags);
}

int __c3_close(int fd) {
  files::take_site();
  files::descriptor_closed(fd);
  return close(fd);
}

int __c3_dup(int fd) {
  int copy = dup(fd);
  if (copy < 0) {
    files::take_site();
    return copy;
  }
  files::descriptor_duplicated(fd, copy, "dup");
  return copy;
}

int __c3_dup2(int fd, int to) {
  int r = dup2(fd, to);
  if (r < 0 || fd == to) {
    files::take_site();
    return r;
  }
  files::descriptor_duplicated(fd, to, "dup2");
  return r;
}

int __c3_dup3(int fd, int to, int flags) {
  int r = dup3(fd, to, flags);
  if (r < 0) {
    files::take_site();
    return r;
  }
  files::descriptor_duplicated(fd, to, "dup3");
  return r;
}

int __c3_pipe(int fds[2]) { return tracked_pair(pipe(fds), fds, "pipe", O_RDONLY, O_WRONLY); }

int __c3_pipe2(int fds[2], int flags) {
  return tracked_pair(pipe2(fds, flags), fds, "pipe2", O_RDONLY | flags, O_WRONLY | flags);
}

int __c3_socket(int domain, int type, int protocol) {
  return tracked_descriptor(socket(domain, type, protocol), "socket", O_RDWR);
}

int __c3_socketpair(int domain, int type, int protocol, int fds[2]) {
  return tracked_pair(socketpair(domain, type, protocol, fds), fds, "socketpair", O_RDWR, O_RDWR);
}

int __c3_accept(int fd, void *address, void *length) {
  return tracked_descriptor(
      accept(fd, static_cast<sockaddr *>(address), static_cast<socklen_t *>(length)), "accept",
      O_RDWR);
}

}  // extern "C"
