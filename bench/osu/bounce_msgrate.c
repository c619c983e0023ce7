/* bounce_msgrate.c - what a header inline in each message costs the message rate, in plain MPI
 * with no c3 code: the floor for c3's rate of small nonblocking messages (docs/protocol.md,
 * "Cost").
 *
 *   mpiexec -n 2 bounce_msgrate [-s LIST] [-b N] [-i X] [-w N]   (options: osu_common.h;
 *                                                                default size 8 B)
 *
 * msgrate.c's pattern (rank 0 sends windows of MPI_Isend to pre-posted MPI_Irecv, both complete
 * with MPI_Waitall, a 4-byte acknowledgement per window) in three shapes:
 *   single   the program's messages alone
 *   bounce   each message is a 4-byte header and the payload copied into a buffer of its own,
 *            received into a buffer of its own and copied out after the MPI_Waitall
 *   table    bounce, and the program holds handles of its own: each names a record (buffer,
 *            MPICH request, bounce slot) taken from a free list at the call and given back at
 *            completion, and each arrival is counted per source, as any layer must that keeps
 *            requests valid across a restart
 * Batches of the three shapes take turns. Each output line is one size: "SIZE SINGLE BOUNCE
 * TABLE BOUNCE_RATIO TABLE_RATIO": the median messages per second of each shape over -b batches
 * (default 15) and the medians of the ratios to single of batches run next to each other.
 */
#include "osu_common.h"

static const char kProgram[] = "bounce_msgrate";
enum { kLargest = 8192, kHeader = 4, kMaxWindow = 1024 };

/* One record of the table shape: what a layer keeps per request it hands out. */
struct record {
  char *buf;
  int count;
  int peer;
  int receive;
  MPI_Request real;
  char *bounce;
};
static struct record records[kMaxWindow];
static int free_records[kMaxWindow], free_count;
static long arrivals[2];  /* per source */

static char *bounces;  /* window * (kHeader + largest) */
static long bounce_stride;

static int take_record(void) { return free_records[--free_count]; }
static void give_back(int handle) { free_records[free_count++] = handle; }

static void send_one(int shape, int w, char *buffer, long size, MPI_Request *request) {
  if (shape == 0) {
    MPI_Isend(buffer, (int)size, MPI_CHAR, 1, 4, MPI_COMM_WORLD, request);
    return;
  }
  char *b = bounces + (size_t)w * (size_t)bounce_stride;
  const int header = 5;
  memcpy(b, &header, kHeader);
  memcpy(b + kHeader, buffer, (size_t)size);
  if (shape == 1) {
    MPI_Isend(b, (int)size + kHeader, MPI_BYTE, 1, 4, MPI_COMM_WORLD, request);
    return;
  }
  const int h = take_record();
  struct record *r = &records[h];
  r->buf = buffer, r->count = (int)size, r->peer = 1, r->receive = 0, r->bounce = b;
  MPI_Isend(b, (int)size + kHeader, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &r->real);
  *request = (MPI_Request)h;
}

static void post_receives(int shape, char *slots, long size, int window, MPI_Request *requests) {
  for (int w = 0; w < window; ++w) {
    char *slot = slots + (size_t)w * (size_t)size;
    if (shape == 0) {
      MPI_Irecv(slot, (int)size, MPI_CHAR, 0, 4, MPI_COMM_WORLD, &requests[w]);
      continue;
    }
    char *b = bounces + (size_t)w * (size_t)bounce_stride;
    if (shape == 1) {
      MPI_Irecv(b, (int)size + kHeader, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &requests[w]);
      continue;
    }
    const int h = take_record();
    struct record *r = &records[h];
    r->buf = slot, r->count = (int)size, r->peer = 0, r->receive = 1, r->bounce = b;
    MPI_Irecv(b, (int)size + kHeader, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &r->real);
    requests[w] = (MPI_Request)h;
  }
}

/* Completes a window; copies bounced payloads out on the receiving side. */
static void complete(int shape, int receiving, char *slots, long size, int window,
                     MPI_Request *requests) {
  static MPI_Request reals[kMaxWindow];
  static MPI_Status statuses[kMaxWindow];
  if (shape == 0) {
    MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
    return;
  }
  if (shape == 1) {
    MPI_Waitall(window, requests, receiving ? statuses : MPI_STATUSES_IGNORE);
    if (receiving)
      for (int w = 0; w < window; ++w) {
        int header;
        const char *b = bounces + (size_t)w * (size_t)bounce_stride;
        memcpy(&header, b, kHeader);
        memcpy(slots + (size_t)w * (size_t)size, b + kHeader, (size_t)statuses[w].count_lo - kHeader);
      }
    return;
  }
  for (int w = 0; w < window; ++w) reals[w] = records[(int)requests[w]].real;
  MPI_Waitall(window, reals, receiving ? statuses : MPI_STATUSES_IGNORE);
  for (int w = 0; w < window; ++w) {
    const int h = (int)requests[w];
    struct record *r = &records[h];
    if (r->receive) {
      int header;
      memcpy(&header, r->bounce, kHeader);
      memcpy(r->buf, r->bounce + kHeader, (size_t)statuses[w].count_lo - kHeader);
      ++arrivals[statuses[w].MPI_SOURCE & 1];
    }
    give_back(h);
    requests[w] = MPI_REQUEST_NULL;
  }
}

/* Messages per second of one batch of `rounds` rounds (meaningful on rank 0). */
static double batch(int shape, int rank, char *send_buffer, char *slots, long size, int window,
                    long rounds, MPI_Request *requests) {
  int ack = 0;
  if (rank == 1) post_receives(shape, slots, size, window, requests);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (long r = 0; r < rounds; ++r) {
    if (rank == 0) {
      for (int w = 0; w < window; ++w) send_one(shape, w, send_buffer, size, &requests[w]);
      complete(shape, 0, slots, size, window, requests);
      MPI_Recv(&ack, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      complete(shape, 1, slots, size, window, requests);
      if (r + 1 < rounds) post_receives(shape, slots, size, window, requests);
      MPI_Send(&ack, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
  }
  return (double)window * (double)rounds / (MPI_Wtime() - start);
}

int main(int argc, char **argv) {
  struct osu_options options;
  int rank, ranks;
  osu_start(kProgram, &argc, &argv, &options, &rank, &ranks);
  if (ranks < 2) osu_fail(kProgram, "needs at least 2 ranks");
  if (!osu_option_given(argc, argv, "sM")) {
    options.sizes[0] = 8;
    options.size_count = 1;
  }
  if (!osu_option_given(argc, argv, "b")) options.batches = 15;
  const long largest = osu_largest_size(&options);
  if (largest > kLargest) osu_fail(kProgram, "sizes go up to 8192 bytes (c3's bounce limit)");
  if (options.window > kMaxWindow) osu_fail(kProgram, "the window is at most 1024");

  bounce_stride = (kHeader + largest + 63) / 64 * 64;
  bounces = osu_alloc_pages(kProgram, (size_t)bounce_stride * (size_t)options.window);
  char *send_buffer = osu_alloc_pages(kProgram, (size_t)largest);
  char *slots = osu_alloc_pages(kProgram, (size_t)largest * (size_t)options.window);
  MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)options.window);
  if (!requests) osu_fail(kProgram, "out of memory");
  for (int i = 0; i < kMaxWindow; ++i) free_records[free_count++] = kMaxWindow - 1 - i;
  memset(send_buffer, 1, (size_t)largest);
  osu_touch_all_peers();
  if (rank == 0) {
    printf("# bounce_msgrate: rank 0 -> 1, window %d, plain MPI: the messages alone, through a "
           "bounce with a header, and bounce + own handles; %d batches\n",
           options.window, options.batches);
    printf("# size_bytes single bounce table (messages/s, medians) bounce/single table/single "
           "(medians of the ratios within a batch round)\n");
  }
  for (int s = 0; s < options.size_count; ++s) {
    const long size = options.sizes[s];
    const long rounds = osu_scaled(2000, options.iteration_scale, 2);  /* as msgrate.c */
    double rate[3][OSU_MAX_BATCHES], ratio[2][OSU_MAX_BATCHES];
    for (int shape = 0; shape < 3; ++shape)
      batch(shape, rank, send_buffer, slots, size, options.window, rounds / 10 + 2, requests);
    for (int b = 0; b < options.batches; ++b) {
      for (int k = 0; k < 3; ++k) {  /* the shapes take turns going first */
        const int shape = (b + k) % 3;
        rate[shape][b] = batch(shape, rank, send_buffer, slots, size, options.window, rounds,
                               requests);
      }
      ratio[0][b] = rate[1][b] / rate[0][b];
      ratio[1][b] = rate[2][b] / rate[0][b];
    }
    if (rank == 0)
      printf("%ld %.0f %.0f %.0f %.3f %.3f\n", size, osu_median(rate[0], options.batches),
             osu_median(rate[1], options.batches), osu_median(rate[2], options.batches),
             osu_median(ratio[0], options.batches), osu_median(ratio[1], options.batches));
  }
  free(requests);
  free(slots);
  free(send_buffer);
  free(bounces);
  MPI_Finalize();
  return 0;
}
