/* shim_setting.h - how the LD_PRELOAD libraries of the MPI end-to-end tests read their settings:
 * integers from the environment, read in a constructor (PMI_RANK, set by mpiexec, names the
 * rank the library is loaded into). */
#pragma once
#include <stdlib.h>

static inline int shim_setting(const char *name, int fallback) {
  const char *value = getenv(name);
  return value && *value ? atoi(value) : fallback;
}
