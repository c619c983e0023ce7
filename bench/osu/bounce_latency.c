/* bounce_latency.c - what c3's bounce buffer costs a ping-pong, in plain MPI with no c3 code:
 * the floor for c3's latency of messages up to 8 KiB (docs/protocol.md, "Cost"), and what a
 * header without a copy would cost instead.
 *
 *   mpiexec -n 2 bounce_latency [-s LIST] [-b N] [-i X]   (options: osu_common.h;
 *                                                        default sizes 8 B, 1 KiB .. 8 KiB)
 *
 * latency.c's pattern (MPI_Send/MPI_Recv between ranks 0 and 1) in four shapes:
 *   single   the program's message alone
 *   bounce   a 4-byte header and the payload copied into one buffer, sent as one message,
 *            received into a buffer and copied out (how c3 sends messages up to 8 KiB)
 *   recv-in-place  sent as bounce; received straight into the program's buffer with the header
 *            in the 4 bytes before it, which are kept aside and put back after the receive
 *   in-place  the same at the sender too: the header written into the 4 bytes before the
 *            program's buffer, which is sent from there with it, and those bytes put back
 * The last two are safe only while nothing else reads or writes those 4 bytes during the call;
 * c3 takes the in-place shape for blocking calls of 1-8 KiB where that holds
 * (protocol/messages/borrowed_header.hpp), so this shape is what its section 1 can reach.
 * Batches of the shapes alternate. Each output line is one size: "SIZE SINGLE_US BOUNCE_US
 * BOUNCE_RATIO RECV_IN_PLACE_RATIO IN_PLACE_RATIO", the median one-way microseconds of the first
 * two shapes over -b batches (default 15) and the medians of each shape's ratio to single in
 * batches run next to each other.
 */
#include "osu_common.h"

static const char kProgram[] = "bounce_latency";
enum { kLargest = 8192 };  /* c3's bounce limit */

/* The message starts 60 bytes in, so the payload sits 64-byte aligned like the page-aligned
 * buffer (as c3 places it: copies between addresses 1-31 bytes apart modulo 4096 ran far
 * slower here). */
static _Alignas(64) char bounce_area[kLargest + 64];
static char *const bounce = bounce_area + 60;

enum { kSingle, kBounce, kRecvInPlace, kInPlace, kShapes };

/* One message of `size` bytes from `buffer`, in `shape`. */
static void send_one(int shape, char *buffer, long size, int peer) {
  int header = 5;
  char kept[4];
  switch (shape) {
    case kSingle:
      MPI_Send(buffer, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      return;
    case kBounce:
    case kRecvInPlace:
      memcpy(bounce, &header, 4);
      memcpy(bounce + 4, buffer, (size_t)size);
      MPI_Send(bounce, (int)size + 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      return;
    case kInPlace:
      memcpy(kept, buffer - 4, 4);
      memcpy(buffer - 4, &header, 4);
      MPI_Send(buffer - 4, (int)size + 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      memcpy(buffer - 4, kept, 4);
      return;
  }
}

/* One message of `size` bytes into `buffer`, in `shape`; returns its header (0 for single). */
static int recv_one(int shape, char *buffer, long size, int peer) {
  int header = 0;
  char kept[4];
  switch (shape) {
    case kSingle:
      MPI_Recv(buffer, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      break;
    case kBounce:
      MPI_Recv(bounce, (int)size + 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      memcpy(&header, bounce, 4);
      memcpy(buffer, bounce + 4, (size_t)size);
      break;
    case kRecvInPlace:
    case kInPlace:
      memcpy(kept, buffer - 4, 4);
      MPI_Recv(buffer - 4, (int)size + 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      memcpy(&header, buffer - 4, 4);
      memcpy(buffer - 4, kept, 4);
      break;
  }
  return header;
}

static void ping_pong(int shape, int rank, char *buffer, long size, long count) {
  const int peer = 1 - rank;
  for (long i = 0; i < count; ++i)
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (rank == 0))
        send_one(shape, buffer, size, peer);
      else if (recv_one(shape, buffer, size, peer) != (shape == kSingle ? 0 : 5))
        osu_fail(kProgram, "a header was lost");
    }
}

/* One batch's one-way microseconds (meaningful on ranks 0 and 1). */
static double batch(int shape, int rank, char *buffer, long size, long count) {
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  if (rank < 2) ping_pong(shape, rank, buffer, size, count);
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

  /* Page-aligned as latency.c's buffer, with the page before it mapped for the in-place shapes. */
  char *const pages = osu_alloc_pages(kProgram, (size_t)kLargest + 4096);
  char *const buffer = pages + 4096;
  memset(pages, rank + 1, (size_t)kLargest + 4096);
  osu_touch_all_peers();
  if (rank == 0) {
    printf("# bounce_latency: ping-pong rank 0 <-> 1, plain MPI, one message vs header + payload "
           "through a copy on each side, received in place, in place on both sides, %d batches\n",
           options.batches);
    printf("# size_bytes single_us bounce_us (medians) bounce/single recv-in-place/single "
           "in-place/single (medians of the ratios within a batch round)\n");
  }
  for (int s = 0; s < options.size_count; ++s) {
    const long size = options.sizes[s];
    const long count = osu_scaled(2000, options.iteration_scale, 2);
    double us[kShapes][OSU_MAX_BATCHES], ratio[kShapes][OSU_MAX_BATCHES];
    for (int shape = 0; shape < kShapes; ++shape) batch(shape, rank, buffer, size, count / 10 + 2);
    for (int b = 0; b < options.batches; ++b) {
      for (int k = 0; k < kShapes; ++k) {  /* the shapes take turns going first */
        const int shape = (b + k) % kShapes;
        us[shape][b] = batch(shape, rank, buffer, size, count);
      }
      for (int shape = 0; shape < kShapes; ++shape) ratio[shape][b] = us[shape][b] / us[kSingle][b];
    }
    if (rank == 0)
      printf("%ld %.3f %.3f %.3f %.3f %.3f\n", size, osu_median(us[kSingle], options.batches),
             osu_median(us[kBounce], options.batches), osu_median(ratio[kBounce], options.batches),
             osu_median(ratio[kRecvInPlace], options.batches),
             osu_median(ratio[kInPlace], options.batches));
  }
  free(pages);
  MPI_Finalize();
  return 0;
}
