/* latency.c - point-to-point latency: ping-pong between ranks 0 and 1 with MPI_Send/MPI_Recv.
 *
 *   mpiexec -n 2 latency [-s LIST] [-M BYTES] [-b N] [-i X]   (options: osu_common.h)
 *
 * For every size: warm-up round trips, then -b timed batches of round trips; a batch's one-way
 * latency is its time / (2 * round trips). Prints "SIZE MICROSECONDS", the median batch. Ranks
 * other than 0 and 1 only take part in the start (one message with every peer) and the end (the
 * peak-RSS report), so the program also measures per-rank memory at any number of ranks.
 *
 * Built with c3cc, the plain pragma between sizes makes main a checkpointable function as in a
 * real application; it checkpoints only when C3_INTERVAL is set. The timed loop is a function
 * of its own that cannot reach a checkpoint, so c3 leaves it uninstrumented.
 */
#include "osu_common.h"

static const char kProgram[] = "latency";

/* Round trips of one batch: many for small messages, fewer as the bytes grow. */
static long round_trips(long size, double scale) {
  long base = size <= 8192 ? 2000 : 20000000L / size;
  return osu_scaled(base < 10 ? 10 : base, scale, 2);
}

static void ping_pong(int rank, char *buffer, long size, long count) {
  for (long i = 0; i < count; ++i) {
    if (rank == 0) {
      MPI_Send(buffer, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buffer, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
  }
}

/* Median one-way latency in microseconds over the batches (meaningful on rank 0). */
static double measure(int rank, char *buffer, long size, const struct osu_options *options) {
  long count = round_trips(size, options->iteration_scale);
  double batch_us[OSU_MAX_BATCHES];
  if (rank < 2) ping_pong(rank, buffer, size, count / 10 < 2 ? 2 : count / 10);
  for (int b = 0; b < options->batches; ++b) {
    double start = MPI_Wtime();
    if (rank < 2) ping_pong(rank, buffer, size, count);
    batch_us[b] = (MPI_Wtime() - start) * 1e6 / (2.0 * (double)count);
  }
  return osu_median(batch_us, options->batches);
}

int main(int argc, char **argv) {
  struct osu_options options;
  int rank, ranks;
  osu_start(kProgram, &argc, &argv, &options, &rank, &ranks);
  if (ranks < 2) osu_fail(kProgram, "needs at least 2 ranks");

  long largest = osu_largest_size(&options);
  char *buffer = osu_alloc_pages(kProgram, (size_t)largest);
  memset(buffer, rank + 1, (size_t)largest);
  osu_touch_all_peers();

  if (rank == 0) {
    printf("# latency: ping-pong rank 0 <-> 1, MPI_Send/MPI_Recv, %d ranks, %d batches per size\n",
           ranks, options.batches);
    printf("# size_bytes one_way_us\n");
  }
  for (int s = 0; s < options.size_count; ++s) {
    MPI_Barrier(MPI_COMM_WORLD);
    double us = measure(rank, buffer, options.sizes[s], &options);
    if (rank == 0) printf("%ld %.3f\n", options.sizes[s], us);
#pragma ccc_checkpoint
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(buffer);
  osu_report_peak_rss();
  MPI_Finalize();
  return 0;
}
