/* exchange.c - a halo exchange: ranks 0 and 1 each post MPI_Irecv from the other, MPI_Isend to
 * it and MPI_Waitall both, with buffers from malloc (wherever the allocator puts them, as in an
 * application; latency.c and bandwidth.c use page-aligned buffers).
 *
 *   mpiexec -n 2 exchange [-s LIST] [-M BYTES] [-b N] [-i X] [-a]
 *                                                     (options: osu_common.h; -a is this file's)
 *
 * -a: an 8-byte MPI_Allreduce between posting and MPI_Waitall, the overlap of a conjugate-
 * gradient step (its receives are pending while it reduces). Each size gets fresh send and
 * receive buffers from malloc. Prints "SIZE MICROSECONDS", the median batch's time per exchange.
 */
#include "osu_common.h"

static const char kProgram[] = "exchange";

static long exchanges(long size, double scale) {
  long base = size <= 8192 ? 4000 : 40000000L / size;
  return osu_scaled(base < 10 ? 10 : base, scale, 2);
}

static void run(int rank, char *out, char *in, long size, long count, int reduce) {
  const int peer = 1 - rank;
  double mine = rank, sum = 0;
  for (long i = 0; i < count; ++i) {
    MPI_Request requests[2];
    MPI_Irecv(in, (int)size, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(out, (int)size, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &requests[1]);
    if (reduce) MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  }
}

int main(int argc, char **argv) {
  int reduce = 0, kept = 1;
  for (int i = 1; i < argc; ++i) {  /* take -a out before the common options are read */
    if (strcmp(argv[i], "-a") == 0)
      reduce = 1;
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  struct osu_options options;
  int rank, ranks;
  osu_start(kProgram, &argc, &argv, &options, &rank, &ranks);
  if (ranks != 2) osu_fail(kProgram, "needs exactly 2 ranks");
  osu_touch_all_peers();
  if (rank == 0) {
    printf("# exchange: ranks 0 <-> 1, MPI_Irecv + MPI_Isend + %sMPI_Waitall, buffers from malloc, "
           "%d batches per size\n", reduce ? "MPI_Allreduce (8 B) + " : "", options.batches);
    printf("# size_bytes us_per_exchange\n");
  }
  for (int s = 0; s < options.size_count; ++s) {
    long size = options.sizes[s];
    char *out = malloc((size_t)size), *in = malloc((size_t)size);
    if (out == NULL || in == NULL) osu_fail(kProgram, "out of memory");
    memset(out, rank + 1, (size_t)size);
    memset(in, 0, (size_t)size);
    long count = exchanges(size, options.iteration_scale);
    double batch_us[OSU_MAX_BATCHES];
    run(rank, out, in, size, count / 10 < 2 ? 2 : count / 10, reduce);
    for (int b = 0; b < options.batches; ++b) {
      MPI_Barrier(MPI_COMM_WORLD);
      double start = MPI_Wtime();
      run(rank, out, in, size, count, reduce);
      batch_us[b] = (MPI_Wtime() - start) * 1e6 / (double)count;
    }
    if (rank == 0) printf("%ld %.3f\n", size, osu_median(batch_us, options.batches));
    free(in);
    free(out);
#pragma ccc_checkpoint
  }
  MPI_Barrier(MPI_COMM_WORLD);
  osu_report_peak_rss();
  MPI_Finalize();
  return 0;
}
