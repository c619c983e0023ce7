/* bounce_latency.c - what c3's bounce buffer costs a ping-pong, in plain MPI with no c3 code:
 * the floor for c3's latency of messages up to 8 KiB (docs/protocol.md, "Cost").
 *
 *   mpiexec -n 2 bounce_latency [-s LIST] [-b N] [-i X]   (options: osu_common.h;
 *                                                        default sizes 8 B, 1 KiB .. 8 KiB)
 *
 * latency.c's pattern (MPI_Send/MPI_Recv between ranks 0 and 1) in two shapes:
 *   single   the program's message alone
 *   bounce   a 4-byte header and the payload copied into one buffer, sent as one message,
 *            received into a buffer and copied out (how c3 sends messages up to 8 KiB)
 * Batches of the two shapes alternate. Each output line is one size: "SIZE SINGLE_US BOUNCE_US
 * BOUNCE_RATIO", the median one-way microseconds of each shape over -b batches (default 15) and
 * the median of the ratios of batches run next to each other.
 */
#include "osu_common.h"

static const char kProgram[] = "bounce_latency";
enum { kLargest = 8192 };  /* c3's bounce limit */

/* The message starts 60 bytes in, so the payload sits 64-byte aligned like the page-aligned
 * buffer (as c3 places it: copies between addresses 1-31 bytes apart modulo 4096 ran far
 * slower here). */
static _Alignas(64) char bounce_area[kLargest + 64];
static char *const bounce = bounce_area + 60;

static void ping_pong(int bounced, int rank, char *buffer, long size, long count) {
  const int peer = 1 - rank;
  int header = 5;
  for (long i = 0; i < count; ++i)
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (rank == 0)) {
        if (!bounced) {
          MPI_Send(buffer, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
          continue;
        }
        memcpy(bounce, &header, 4);
        memcpy(bounce + 4, buffer, (size_t)size);
        MPI_Send(bounce, (int)size + 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      } else if (!bounced) {
        MPI_Recv(buffer, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(bounce, (int)size + 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memcpy(&header, bounce, 4);
        memcpy(buffer, bounce + 4, (size_t)size);
      }
    }
}

/* One batch's one-way microseconds (meaningful on ranks 0 and 1). */
static double batch(int bounced, int rank, char *buffer, long size, long count) {
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  if (rank < 2) ping_pong(bounced, rank, buffer, size, count);
  return (MPI_Wtime() - start) * 1e6 / (2.0 * (double)count);
}

int main(int argc, char **argv) {
  struct osu_options options;
  int rank, ranks;
  osu_start(kProgram, &argc, &argv, &options, &rank, &ranks);
  if (ranks < 2) osu_fail(kProgram, "needs at least 2 ranks");
  if (!osu_option_given(argc, argv, "sM")) {
    options.size_count = 0;
    options.sizes[options.size_count++] = 8;
    for (long size = 1024; size <= (long)kLargest; size *= 2) options.sizes[options.size_count++] = size;
  }
  if (!osu_option_given(argc, argv, "b")) options.batches = 15;
  if (osu_largest_size(&options) > kLargest) osu_fail(kProgram, "sizes go up to 8192 bytes (c3's bounce limit)");

  char *buffer = osu_alloc_pages(kProgram, (size_t)kLargest);
  memset(buffer, rank + 1, (size_t)kLargest);
  osu_touch_all_peers();
  if (rank == 0) {
    printf("# bounce_latency: ping-pong rank 0 <-> 1, plain MPI, one message vs header + payload "
           "through a copy on each side, %d batches\n", options.batches);
    printf("# size_bytes single_us bounce_us (medians) bounce/single (median of the ratios "
           "within a batch round)\n");
  }
  for (int s = 0; s < options.size_count; ++s) {
    const long size = options.sizes[s];
    const long count = osu_scaled(2000, options.iteration_scale, 2);
    double us[2][OSU_MAX_BATCHES], ratio[OSU_MAX_BATCHES];
    for (int shape = 0; shape < 2; ++shape) batch(shape, rank, buffer, size, count / 10 + 2);
    for (int b = 0; b < options.batches; ++b) {
      for (int k = 0; k < 2; ++k) {  /* the shapes take turns going first */
        const int shape = (b + k) % 2;
        us[shape][b] = batch(shape, rank, buffer, size, count);
      }
      ratio[b] = us[1][b] / us[0][b];
    }
    if (rank == 0)
      printf("%ld %.3f %.3f %.3f\n", size, osu_median(us[0], options.batches),
             osu_median(us[1], options.batches), osu_median(ratio, options.batches));
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
