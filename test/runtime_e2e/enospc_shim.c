/* Test aid (LD_PRELOAD): a full disk. writev() and pwrite() on descriptors other than 0-2 fail
 * with ENOSPC once C3_TEST_DISK_BYTES bytes have been written through them, so checkpoint files
 * run out of space part-way while the program's own output keeps working. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long budget = -1; /* bytes left; -1: not read yet */

static int out_of_space(int fd, size_t want) {
  if (fd <= 2) return 0;
  if (budget < 0) {
    const char *v = getenv("C3_TEST_DISK_BYTES");
    budget = v ? atoll(v) : 0;
  }
  if ((long long)want <= budget) {
    budget -= (long long)want;
    return 0;
  }
  errno = ENOSPC;
  return 1;
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
  static ssize_t (*real)(int, const struct iovec *, int);
  if (!real) real = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
  size_t want = 0;
  for (int i = 0; i < count; i++) want += iov[i].iov_len;
  if (out_of_space(fd, want)) return -1;
  return real(fd, iov, count);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t at) {
  static ssize_t (*real)(int, const void *, size_t, off_t);
  if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
  if (out_of_space(fd, len)) return -1;
  return real(fd, buf, len, at);
}
