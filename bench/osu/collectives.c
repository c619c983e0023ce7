/* collectives.c - time per collective call, and point-to-point latency on a duplicated
 * communicator next to MPI_COMM_WORLD.
 *
 *   mpiexec -n N collectives [-b N] [-i X]      (options: osu_common.h; -s and -w are ignored)
 *
 * For every operation: warm-up calls, then -b timed batches of calls; a batch's figure is its
 * time / calls on rank 0 (after a last barrier, so it covers every rank's part). Prints
 * "op NAME MICROSECONDS" lines, the median batch:
 *   allreduce-8, allreduce-65536      MPI_Allreduce of 1 / 8192 doubles (MPI_SUM)
 *   bcast-8 .. bcast-1048576          MPI_Bcast from rank 0, 8 B to 1 MiB in steps of 16x
 *   alltoall-1024                     MPI_Alltoall, 1 KiB to every rank
 *   barrier                           MPI_Barrier
 *   latency-world-8, latency-dup-8    one-way ping-pong latency between ranks 0 and 1 on
 *   latency-world-65536, -dup-65536   MPI_COMM_WORLD and on an MPI_Comm_dup of it
 *   iallreduce-8                      MPI_Iallreduce + MPI_Wait of one double
 * Built with c3cc, the plain pragma between operations makes main checkpointable as in a real
 * code; no checkpoint is taken unless C3_INTERVAL is set.
 */
#include "osu_common.h"

static const char kProgram[] = "collectives";

enum Kind { ALLREDUCE, BCAST, ALLTOALL, BARRIER, LATENCY, IALLREDUCE };

struct operation {
  const char *name;
  enum Kind kind;
  long bytes;
  int dup;  /* latency: on the duplicate */
};

static const struct operation kOperations[] = {
    {"allreduce-8", ALLREDUCE, 8, 0},         {"allreduce-65536", ALLREDUCE, 65536, 0},
    {"bcast-8", BCAST, 8, 0},                 {"bcast-128", BCAST, 128, 0},
    {"bcast-2048", BCAST, 2048, 0},           {"bcast-32768", BCAST, 32768, 0},
    {"bcast-524288", BCAST, 524288, 0},       {"bcast-1048576", BCAST, 1048576, 0},
    {"alltoall-1024", ALLTOALL, 1024, 0},     {"barrier", BARRIER, 0, 0},
    {"latency-world-8", LATENCY, 8, 0},       {"latency-dup-8", LATENCY, 8, 1},
    {"latency-world-65536", LATENCY, 65536, 0}, {"latency-dup-65536", LATENCY, 65536, 1},
    {"iallreduce-8", IALLREDUCE, 8, 0},
};

/* Calls of one batch: many for small ones, fewer as the bytes grow. */
static long calls(const struct operation *op, double scale) {
  long base = op->bytes <= 8192 ? 4000 : 40000000L / op->bytes;
  return osu_scaled(base < 20 ? 20 : base, scale, 4);
}

static void run(const struct operation *op, int rank, int ranks, MPI_Comm dup, char *a, char *b,
                long count) {
  const int doubles = (int)(op->bytes / 8);
  MPI_Comm comm = op->dup ? dup : MPI_COMM_WORLD;
  for (long i = 0; i < count; ++i) {
    switch (op->kind) {
      case ALLREDUCE:
        MPI_Allreduce(a, b, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
      case IALLREDUCE: {
        MPI_Request request;
        MPI_Iallreduce(a, b, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        break;
      }
      case BCAST: MPI_Bcast(a, (int)op->bytes, MPI_CHAR, 0, MPI_COMM_WORLD); break;
      case ALLTOALL:
        MPI_Alltoall(a, (int)op->bytes, MPI_CHAR, b, (int)op->bytes, MPI_CHAR, MPI_COMM_WORLD);
        break;
      case BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
      case LATENCY:
        if (rank == 0) {
          MPI_Send(a, (int)op->bytes, MPI_CHAR, 1, 1, comm);
          MPI_Recv(a, (int)op->bytes, MPI_CHAR, 1, 1, comm, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(a, (int)op->bytes, MPI_CHAR, 0, 1, comm, MPI_STATUS_IGNORE);
          MPI_Send(a, (int)op->bytes, MPI_CHAR, 0, 1, comm);
        }
        break;
    }
  }
  (void)ranks;
}

/* Median microseconds per call (per one-way message for latency) over the batches. */
static double measure(const struct operation *op, int rank, int ranks, MPI_Comm dup, char *a,
                      char *b, const struct osu_options *options) {
  long count = calls(op, options->iteration_scale);
  double batch_us[OSU_MAX_BATCHES];
  run(op, rank, ranks, dup, a, b, count / 10 < 2 ? 2 : count / 10);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < options->batches; ++k) {
    double start = MPI_Wtime();
    run(op, rank, ranks, dup, a, b, count);
    MPI_Barrier(MPI_COMM_WORLD);
    double per = (MPI_Wtime() - start) * 1e6 / (double)count;
    batch_us[k] = op->kind == LATENCY ? per / 2.0 : per;
  }
  return osu_median(batch_us, options->batches);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  struct osu_options options;
  osu_parse_options(kProgram, argc, argv, &options);
  if (ranks < 2) osu_fail(kProgram, "needs at least 2 ranks");
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const size_t bytes = (size_t)1048576 * (size_t)ranks;
  char *a = osu_alloc_pages(kProgram, bytes), *b = osu_alloc_pages(kProgram, bytes);
  memset(a, 1, bytes);
  memset(b, 0, bytes);
  if (rank == 0) printf("# collectives: %d ranks, %d batches, median per call\n", ranks,
                        options.batches);
  for (size_t i = 0; i < sizeof kOperations / sizeof kOperations[0]; ++i) {
    double us = measure(&kOperations[i], rank, ranks, dup, a, b, &options);
    if (rank == 0) printf("op %s %.4f\n", kOperations[i].name, us);
#pragma ccc_checkpoint
  }
  MPI_Comm_free(&dup);
  osu_report_peak_rss();
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
