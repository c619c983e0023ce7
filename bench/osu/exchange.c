/* exchange.c - a halo exchange: ranks 0 and 1 each post MPI_Irecv from the other, MPI_Isend to
 * it and MPI_Waitall both, with buffers from malloc (wherever the allocator puts them, as in an
 * application; latency.c and bandwidth.c use page-aligned buffers).
 *
 *   mpiexec -n 2 exchange [-s LIST] [-M BYTES] [-b N] [-i X] [-a | -p]
 *                                              (options: osu_common.h; -a and -p are this file's)
 *
 * -a: an 8-byte MPI_Allreduce between posting and MPI_Waitall, the overlap of a conjugate-
 * gradient step (its receives are pending while it reduces).
 * -p: the other common idiom: MPI_Irecv, then a blocking MPI_Send, then MPI_Wait.
 * Each size gets fresh send and receive buffers from malloc. Prints "SIZE MICROSECONDS", the
 * median batch's time per exchange.
 */
#include "osu_common.h"

static const char kProgram[] = "exchange";

static long exchanges(long size, double scale) {
  long base = size <= 8192 ? 4000 : 40000000L / size;
  return osu_scaled(base < 10 ? 10 : base, scale, 2);
}

enum shape { NONBLOCKING, REDUCING, BLOCKING_SEND };

static void run(int rank, char *out, char *in, long size, long count, enum shape shape) {
  const int peer = 1 - rank;
  double mine = rank, sum = 0;
  for (long i = 0; i < count; ++i) {
    MPI_Request requests[2];
    MPI_Irecv(in, (int)size, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &requests[0]);
    if (shape == BLOCKING_SEND) {
      MPI_Send(out, (int)size, MPI_CHAR, peer, 7, MPI_COMM_WORLD);
      MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
      continue;
    }
    MPI_Isend(out, (int)size, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &requests[1]);
    if (shape == REDUCING) MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  }
}

int main(int argc, char **argv) {
  enum shape shape = NONBLOCKING;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {  /* take -a, -p out before the common options are read */
    if (strcmp(argv[i], "-a") == 0)
      shape = REDUCING;
    else if (strcmp(argv[i], "-p") == 0)
      shape = BLOCKING_SEND;
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
    static const char *const calls[] = {"MPI_Irecv + MPI_Isend + MPI_Waitall",
                                        "MPI_Irecv + MPI_Isend + MPI_Allreduce (8 B) + MPI_Waitall",
                                        "MPI_Irecv + MPI_Send + MPI_Wait"};
    printf("# exchange: ranks 0 <-> 1, %s, buffers from malloc, %d batches per size\n",
           calls[shape], options.batches);
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
    run(rank, out, in, size, count / 10 < 2 ? 2 : count / 10, shape);
    for (int b = 0; b < options.batches; ++b) {
      MPI_Barrier(MPI_COMM_WORLD);
      double start = MPI_Wtime();
      run(rank, out, in, size, count, shape);
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
