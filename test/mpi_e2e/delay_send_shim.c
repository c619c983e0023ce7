/* delay_send_shim.c - an LD_PRELOAD library for the MPI end-to-end tests: one rank sleeps right
 * before one chosen send, as if it had been descheduled there.
 *
 * Some protocol races need one message to arrive late, which happens on a loaded machine only
 * now and then. This library makes it happen every time: it defines PMPI_Send and PMPI_Isend,
 * and the first call on rank DELAY_SEND_RANK with tag DELAY_SEND_TAG (to DELAY_SEND_DEST, if
 * set) sleeps DELAY_SEND_MS before going on to MPICH. c3's layer calls PMPI_* itself, so its
 * control messages (on its private communicators) can be held back as well as the program's.
 * Any communicator matches: a test picks a tag that only the message it means uses.
 *
 * Settings, read when the library is loaded (the rank from PMI_RANK, which mpiexec sets):
 *   DELAY_SEND_RANK  the rank that sleeps                          (required, else no effect)
 *   DELAY_SEND_TAG   the tag of the send                           (required, else no effect)
 *   DELAY_SEND_DEST  only a send to this rank                      (default: any destination)
 *   DELAY_SEND_MS    milliseconds                                  (default: 500)
 * When it sleeps it says so on stderr, in a line starting with "preload: " (run_mpi_case.sh
 * requires one from a killed run that preloads a library: a delay that never happened makes a
 * passing test meaningless).
 *
 * Built without libmpi: the real functions come from the next library in the search order.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "shim_setting.h"

static int armed;
static int delay_rank = -1, delay_tag, delay_dest = -1, delay_ms = 500;

__attribute__((constructor)) static void read_settings(void) {
  int rank = shim_setting("PMI_RANK", -1);
  delay_rank = shim_setting("DELAY_SEND_RANK", -1);
  delay_tag = shim_setting("DELAY_SEND_TAG", -1);
  delay_dest = shim_setting("DELAY_SEND_DEST", -1);
  delay_ms = shim_setting("DELAY_SEND_MS", 500);
  armed = rank >= 0 && rank == delay_rank && getenv("DELAY_SEND_TAG") != NULL;
}

static void maybe_sleep(int dest, int tag) {
  if (!armed || tag != delay_tag || (delay_dest >= 0 && dest != delay_dest)) return;
  armed = 0;
  fprintf(stderr, "preload: rank %d holds back its send with tag %d to rank %d for %d ms\n",
          delay_rank, tag, dest, delay_ms);
  struct timespec pause = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  static send_fn next;
  if (!next) next = (send_fn)dlsym(RTLD_NEXT, "PMPI_Send");
  maybe_sleep(dest, tag);
  return next(buf, count, type, dest, tag, comm);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  static isend_fn next;
  if (!next) next = (isend_fn)dlsym(RTLD_NEXT, "PMPI_Isend");
  maybe_sleep(dest, tag);
  return next(buf, count, type, dest, tag, comm, request);
}
