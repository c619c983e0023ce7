#include "support/own_descriptors.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace c3 {

int move_to_own_range(int fd) {
  if (fd < 0 || fd >= kOwnDescriptorsFrom) return fd;
  struct rlimit limit;
  int from = kOwnDescriptorsFrom;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      limit.rlim_cur <= rlim_t(from) + 16)
    from = int(limit.rlim_cur / 2);
  if (fd >= from) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, from);
  if (moved < 0) return fd;
  close(fd);
  return moved;
}

}  // namespace c3
