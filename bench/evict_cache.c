/* evict_cache - drop the given files' pages from the page cache, so that the next read comes
 * from the disk. Works per file (fdatasync, then POSIX_FADV_DONTNEED), unlike
 * /proc/sys/vm/drop_caches, which would disturb every other job on a shared machine.
 *
 *   evict_cache FILE...
 *
 * Prints, per file, how many of its pages were still cached afterwards (mincore), so a reader
 * can tell whether the eviction worked.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Pages of `fd` (size `size`) resident in the page cache, or -1 when it cannot be told. */
static long cached_pages(int fd, off_t size) {
  if (size == 0) return 0;
  void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return -1;
  long page = sysconf(_SC_PAGESIZE);
  size_t pages = ((size_t)size + (size_t)page - 1) / (size_t)page;
  unsigned char *resident = malloc(pages);
  long count = -1;
  if (resident != NULL && mincore(map, (size_t)size, resident) == 0) {
    count = 0;
    for (size_t i = 0; i < pages; ++i) count += resident[i] & 1;
  }
  free(resident);
  munmap(map, (size_t)size);
  return count;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: evict_cache FILE...\n");
    return 2;
  }
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    int fd = open(argv[i], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
      perror(argv[i]);
      ++failures;
      if (fd >= 0) close(fd);
      continue;
    }
    // Dirty pages cannot be dropped: write them back first.
    fdatasync(fd);
    int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (err != 0) {
      fprintf(stderr, "%s: posix_fadvise failed (%d)\n", argv[i], err);
      ++failures;
    }
    printf("%s: %ld pages still cached\n", argv[i], cached_pages(fd, st.st_size));
    close(fd);
  }
  return failures ? 1 : 0;
}
