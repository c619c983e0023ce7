/* abort_in_mpi_shim.c - an LD_PRELOAD library for the MPI end-to-end tests: one rank aborts
 * inside a blocking MPI call, as UCX aborts a rank whose peer died in the middle of a transfer
 * ("process_vm_readv ... No such process", then abort()).
 *
 * It defines PMPI_Recv and PMPI_Waitall; the ABORT_IN_MPI_CALL-th call of either (counted
 * together, from 1) on rank ABORT_IN_MPI_RANK calls abort() before going on to MPICH. c3's
 * layer calls PMPI_* itself, so the abort comes from inside c3's hooks, where a real one would.
 *
 * Settings, read when the library is loaded (the rank from PMI_RANK, which mpiexec sets):
 *   ABORT_IN_MPI_RANK  the rank that aborts                  (required, else no effect)
 *   ABORT_IN_MPI_CALL  which call aborts                     (default: 50)
 * It says so on stderr first, in a line starting with "preload: " (run_mpi_case.sh requires one
 * from a killed run that preloads a library).
 *
 * Built without libmpi: the real functions come from the next library in the search order.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim_setting.h"

static int armed;
static long calls, abort_at = 50;
static int abort_rank = -1;

__attribute__((constructor)) static void read_settings(void) {
  int rank = shim_setting("PMI_RANK", -1);
  abort_rank = shim_setting("ABORT_IN_MPI_RANK", -1);
  abort_at = shim_setting("ABORT_IN_MPI_CALL", 50);
  armed = rank >= 0 && rank == abort_rank;
}

static void maybe_abort(const char *call) {
  if (!armed || ++calls < abort_at) return;
  fprintf(stderr, "preload: rank %d aborts inside %s (call %ld)\n", abort_rank, call, calls);
  fflush(stderr);
  abort();
}

typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*waitall_fn)(int, MPI_Request[], MPI_Status[]);

int PMPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Status *status) {
  static recv_fn next;
  if (!next) next = (recv_fn)dlsym(RTLD_NEXT, "PMPI_Recv");
  maybe_abort("PMPI_Recv");
  return next(buf, count, type, source, tag, comm, status);
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  static waitall_fn next;
  if (!next) next = (waitall_fn)dlsym(RTLD_NEXT, "PMPI_Waitall");
  maybe_abort("PMPI_Waitall");
  return next(count, requests, statuses);
}
