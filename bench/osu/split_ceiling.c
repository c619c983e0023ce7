/* split_ceiling.c - what the shape of a transfer costs plain MPI, with no c3 code at all: the
 * ceiling for c3's messages (docs/protocol.md, "Epochs and the header", "Large messages").
 *
 *   mpiexec -n 2 split_ceiling [-s LIST] [-b N] [-i X] [-w N]   (options: osu_common.h;
 *                                                               default sizes 1 KiB .. 1 MiB) 
 *
 * The bandwidth of bandwidth.c's pattern (rank 0 -> 1, windows of MPI_Isend, an ack per window)
 * for three shapes of one application message of SIZE bytes:
 *   single    one message, receive posted before the window (what the application does)
 *   prepost   a 4-byte header on MPI_COMM_WORLD, then the payload on a duplicate communicator,
 *             both receives posted before the window (a split whose payload receive is known
 *             in advance)
 *   late      the same two messages, but the payload's receive is posted only when its header
 *             has arrived (MPI_Waitsome), as c3 posts it: a receiver cannot know in advance
 *             whether the next message on a (source, tag) is split
 *   bounce    one message of header + payload, copied into a buffer of the sender's and out of
 *             one of the receiver's (how c3 sends smaller messages); sizes up to kBounceLargest
 *   datatype  one message of header + payload without a copy: both sides describe the header's
 *             4 bytes and the buffer as one derived datatype (MPI_Type_create_hindexed over
 *             absolute addresses, sent from and received at MPI_BOTTOM), made and committed
 *             before the batches; sizes up to kBounceLargest
 * Any per-message header that travels beside the payload costs at least `prepost`; a header in
 * the same message costs a copy (`bounce`) or a derived datatype (`datatype`) instead. Batches
 * of the shapes alternate; each output line is one size: "SIZE SINGLE PREPOST LATE BOUNCE
 * DATATYPE PREPOST_RATIO LATE_RATIO BOUNCE_RATIO DATATYPE_RATIO", the median MB/s of each shape
 * over -b batches (default 15), then the medians of the ratios to `single` of batches run next
 * to each other (0 where a shape was not measured).
 */
#include "osu_common.h"

static const char kProgram[] = "split_ceiling";
enum { kSingle, kPrepost, kLate, kBounce, kDatatype, kShapes };
static const long kReceiveSlotsBytes = 64L << 20;
static const long kBounceLargest = 128L << 10;
/* Window slots of kBounceStride bytes; a message starts kLead bytes into its slot, so its
 * payload sits at a multiple of 64 bytes, where the page-aligned buffers' payloads do (as c3
 * places it: copies between addresses 1-31 bytes apart modulo 4096 ran far slower here). */
static const long kLead = 60, kBounceStride = (128L << 10) + 128;
static char *send_bounces, *receive_bounces;

static MPI_Comm bulk;

/* The datatype shape's types, one per window slot: header w and the send buffer, or header w
 * and receive slot w. */
static MPI_Datatype *header_and_buffer;

static MPI_Datatype header_with(char *header, char *buffer, long size) {
  int lengths[2] = {4, (int)size};
  MPI_Aint places[2];
  MPI_Get_address(header, &places[0]);
  MPI_Get_address(buffer, &places[1]);
  MPI_Datatype type;
  MPI_Type_create_hindexed(2, lengths, places, MPI_BYTE, &type);
  MPI_Type_commit(&type);
  return type;
}

static int window_for(long size, int window) {
  long fits = kReceiveSlotsBytes / size;
  return fits < window ? (fits < 1 ? 1 : (int)fits) : window;
}

/* One batch of `rounds` windows in `shape`; MB/s (meaningful on rank 0). */
static double batch(int shape, int rank, char *send_buffer, char *slots, long size, int window,
                    long rounds, MPI_Request *requests, char (*headers)[4]) {
  int ack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (long r = 0; r < rounds; ++r) {
    if (rank == 0) {
      int n = 0;
      for (int w = 0; w < window; ++w) {
        if (shape == kBounce) {
          char *bounce = send_bounces + (size_t)w * (size_t)kBounceStride + kLead;
          memcpy(bounce, headers[w], 4);
          memcpy(bounce + 4, send_buffer, (size_t)size);
          MPI_Isend(bounce, (int)size + 4, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &requests[n++]);
          continue;
        }
        if (shape == kDatatype) {
          MPI_Isend(MPI_BOTTOM, 1, header_and_buffer[w], 1, 2, MPI_COMM_WORLD, &requests[n++]);
          continue;
        }
        if (shape != kSingle)
          MPI_Isend(headers[w], 4, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &requests[n++]);
        MPI_Isend(send_buffer, (int)size, MPI_CHAR, 1, 2, shape == kSingle ? MPI_COMM_WORLD : bulk,
                  &requests[n++]);
      }
      MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      int n = 0;
      for (int w = 0; w < window; ++w) {
        char *slot = slots + (size_t)w * (size_t)size;
        if (shape == kSingle) {
          MPI_Irecv(slot, (int)size, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &requests[n++]);
        } else if (shape == kDatatype) {
          MPI_Irecv(MPI_BOTTOM, 1, header_and_buffer[w], 0, 2, MPI_COMM_WORLD, &requests[n++]);
        } else if (shape == kBounce) {
          MPI_Irecv(receive_bounces + (size_t)w * (size_t)kBounceStride + kLead, (int)size + 4,
                    MPI_BYTE, 0, 2, MPI_COMM_WORLD, &requests[n++]);
        } else {
          MPI_Irecv(headers[w], 4, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &requests[n++]);
          if (shape == kPrepost) MPI_Irecv(slot, (int)size, MPI_CHAR, 0, 2, bulk, &requests[n++]);
        }
      }
      if (shape == kLate) {
        /* headers[0..window) complete in order (one source, one tag); each posts its payload */
        MPI_Request *payloads = requests + window;
        int *done = malloc(sizeof(int) * (size_t)window);
        if (done == NULL) osu_fail(kProgram, "out of memory");
        for (int arrived = 0; arrived < window;) {
          int count = 0;
          MPI_Waitsome(window, requests, &count, done, MPI_STATUSES_IGNORE);
          for (int k = 0; k < count; ++k, ++arrived)
            MPI_Irecv(slots + (size_t)done[k] * (size_t)size, (int)size, MPI_CHAR, 0, 2, bulk,
                      &payloads[done[k]]);
        }
        free(done);
        MPI_Waitall(window, payloads, MPI_STATUSES_IGNORE);
      } else if (shape == kBounce) {
        /* each message is copied out as it completes, as c3 does at completion */
        int *done = malloc(sizeof(int) * (size_t)window);
        if (done == NULL) osu_fail(kProgram, "out of memory");
        for (int arrived = 0; arrived < window;) {
          int count = 0;
          MPI_Waitsome(window, requests, &count, done, MPI_STATUSES_IGNORE);
          for (int k = 0; k < count; ++k, ++arrived) {
            const char *bounce = receive_bounces + (size_t)done[k] * (size_t)kBounceStride + kLead;
            memcpy(headers[done[k]], bounce, 4);
            memcpy(slots + (size_t)done[k] * (size_t)size, bounce + 4, (size_t)size);
          }
        }
        free(done);
      } else {
        MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
      }
      MPI_Send(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
  }
  double seconds = MPI_Wtime() - start;
  return (double)size * window * (double)rounds / seconds / 1e6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks < 2) osu_fail(kProgram, "needs at least 2 ranks");
  MPI_Comm_dup(MPI_COMM_WORLD, &bulk);
  struct osu_options options;
  osu_parse_options(kProgram, argc, argv, &options);
  if (!osu_option_given(argc, argv, "sM")) {
    options.size_count = 0;
    for (long size = 1024; size <= (1L << 20); size *= 2) options.sizes[options.size_count++] = size;
  }
  if (!osu_option_given(argc, argv, "b")) options.batches = 15;

  long largest = osu_largest_size(&options);
  char *send_buffer = osu_alloc_pages(kProgram, (size_t)largest);
  char *slots = osu_alloc_pages(kProgram, (size_t)kReceiveSlotsBytes);
  MPI_Request *requests = malloc(sizeof(MPI_Request) * 2 * (size_t)options.window);
  char (*headers)[4] = malloc(sizeof *headers * (size_t)options.window);
  send_bounces = osu_alloc_pages(kProgram, (size_t)kBounceStride * (size_t)options.window);
  receive_bounces = osu_alloc_pages(kProgram, (size_t)kBounceStride * (size_t)options.window);
  header_and_buffer = malloc(sizeof *header_and_buffer * (size_t)options.window);
  if (requests == NULL || headers == NULL || header_and_buffer == NULL)
    osu_fail(kProgram, "out of memory");
  memset(send_buffer, rank + 1, (size_t)largest);
  memset(slots, 0, (size_t)kReceiveSlotsBytes);
  memset(headers, 0, sizeof *headers * (size_t)options.window);
  osu_touch_all_peers();

  if (rank == 0) {
    printf("# split_ceiling: rank 0 -> 1, plain MPI, one message vs header + payload (payload "
           "receive pre-posted, or posted when the header arrives; or one message through a "
           "bounce or a derived datatype), window %d, %d batches\n",
           options.window, options.batches);
    printf("# size_bytes single_MBps prepost_MBps late_MBps bounce_MBps datatype_MBps (medians) "
           "prepost/single late/single bounce/single datatype/single (medians of the ratios "
           "within a batch round; 0: not measured)\n");
  }
  for (int s = 0; s < options.size_count; ++s) {
    long size = options.sizes[s];
    int window = window_for(size, options.window);
    long rounds = osu_scaled((64L << 20) / (size * window) + 2, options.iteration_scale, 2);
    double mbps[kShapes][OSU_MAX_BATCHES] = {{0}};
    const int shapes = size <= kBounceLargest ? kShapes : kBounce;
    if (shapes > kDatatype)
      for (int w = 0; w < window; ++w)
        header_and_buffer[w] = header_with(
            headers[w], rank == 0 ? send_buffer : slots + (size_t)w * (size_t)size, size);
    for (int shape = 0; shape < shapes; ++shape)  /* warm-up */
      batch(shape, rank, send_buffer, slots, size, window, 2, requests, headers);
    for (int b = 0; b < options.batches; ++b)
      for (int k = 0; k < shapes; ++k) {  /* the shapes take turns going first */
        int shape = (b + k) % shapes;
        mbps[shape][b] =
            batch(shape, rank, send_buffer, slots, size, window, rounds, requests, headers);
      }
    double ratio[kShapes][OSU_MAX_BATCHES] = {{0}};
    for (int shape = kPrepost; shape < kShapes; ++shape)
      for (int b = 0; b < options.batches; ++b) ratio[shape][b] = mbps[shape][b] / mbps[kSingle][b];
    if (rank == 0)
      printf("%ld %.1f %.1f %.1f %.1f %.1f %.3f %.3f %.3f %.3f\n", size,
             osu_median(mbps[kSingle], options.batches), osu_median(mbps[kPrepost], options.batches),
             osu_median(mbps[kLate], options.batches), osu_median(mbps[kBounce], options.batches),
             osu_median(mbps[kDatatype], options.batches),
             osu_median(ratio[kPrepost], options.batches), osu_median(ratio[kLate], options.batches),
             osu_median(ratio[kBounce], options.batches),
             osu_median(ratio[kDatatype], options.batches));
    if (shapes > kDatatype)
      for (int w = 0; w < window; ++w) MPI_Type_free(&header_and_buffer[w]);
  }
  free(receive_bounces);
  free(send_bounces);
  free(header_and_buffer);
  free(headers);
  free(requests);
  free(slots);
  free(send_buffer);
  MPI_Comm_free(&bulk);
  MPI_Finalize();
  return 0;
}
