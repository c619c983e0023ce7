/* bandwidth.c - unidirectional bandwidth from rank 0 to rank 1.
 *
 *   mpiexec -n 2 bandwidth [-s LIST] [-M BYTES] [-b N] [-i X] [-w N]
 *                                            (options: osu_common.h)
 *
 * A round: rank 0 starts a window of MPI_Isend (all from one buffer) and completes them with
 * MPI_Waitall; rank 1 posts the matching MPI_Irecv, each into its own slot, completes them with
 * MPI_Waitall and answers with a 4-byte acknowledgement that rank 0 receives before the next
 * round. Receive slots are distinct (overlapping receive buffers are erroneous MPI), so the
 * window shrinks for large messages to keep them within 64 MiB: 16 messages of 4 MiB.
 * Prints "SIZE MB/s" (10^6 bytes per second) of the median batch, and "# window" lines.
 */
#include "osu_common.h"

static const char kProgram[] = "bandwidth";
static const long kReceiveSlotsBytes = 64L << 20;

static int window_for(long size, int window) {
  long fits = kReceiveSlotsBytes / size;
  return fits < window ? (fits < 1 ? 1 : (int)fits) : window;
}

/* Rounds of one batch: about 128 MiB per batch for large messages, at most 200 rounds. */
static long rounds_for(long size, int window, double scale) {
  long per_round = size * window;
  long rounds = (128L << 20) / per_round;
  if (rounds > 200) rounds = 200;
  return osu_scaled(rounds < 2 ? 2 : rounds, scale, 2);
}

static void stream(int rank, char *send_buffer, char *receive_slots, long size, int window,
                   long rounds, MPI_Request *requests) {
  int ack = 0;
  for (long r = 0; r < rounds; ++r) {
    if (rank == 0) {
      for (int w = 0; w < window; ++w)
        MPI_Isend(send_buffer, (int)size, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &requests[w]);
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int w = 0; w < window; ++w)
        MPI_Irecv(receive_slots + (size_t)w * (size_t)size, (int)size, MPI_CHAR, 0, 2,
                  MPI_COMM_WORLD, &requests[w]);
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
  }
}

/* Median bandwidth in MB/s over the batches (meaningful on rank 0). */
static double measure(int rank, char *send_buffer, char *receive_slots, long size, int window,
                      const struct osu_options *options, MPI_Request *requests) {
  long rounds = rounds_for(size, window, options->iteration_scale);
  double batch_mbps[OSU_MAX_BATCHES];
  if (rank < 2) stream(rank, send_buffer, receive_slots, size, window, 2, requests);
  for (int b = 0; b < options->batches; ++b) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (rank < 2) stream(rank, send_buffer, receive_slots, size, window, rounds, requests);
    double seconds = MPI_Wtime() - start;
    batch_mbps[b] = (double)size * window * (double)rounds / seconds / 1e6;
  }
  return osu_median(batch_mbps, options->batches);
}

int main(int argc, char **argv) {
  struct osu_options options;
  int rank, ranks;
  osu_start(kProgram, &argc, &argv, &options, &rank, &ranks);
  if (ranks < 2) osu_fail(kProgram, "needs at least 2 ranks");

  long largest = osu_largest_size(&options);
  size_t slots_bytes = 0;
  for (int s = 0; s < options.size_count; ++s) {
    long size = options.sizes[s];
    size_t bytes = (size_t)size * (size_t)window_for(size, options.window);
    if (bytes > slots_bytes) slots_bytes = bytes;
  }
  char *send_buffer = osu_alloc_pages(kProgram, (size_t)largest);
  char *receive_slots = osu_alloc_pages(kProgram, slots_bytes);
  MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)options.window);
  if (requests == NULL) osu_fail(kProgram, "out of memory");
  memset(send_buffer, rank + 1, (size_t)largest);
  memset(receive_slots, 0, slots_bytes);
  osu_touch_all_peers();

  if (rank == 0) {
    printf("# bandwidth: rank 0 -> 1, window of MPI_Isend / MPI_Irecv + MPI_Waitall, ack per "
           "window, %d ranks, %d batches per size\n", ranks, options.batches);
    printf("# size_bytes MB_per_s (window %d, fewer when size*window > 64 MiB)\n", options.window);
  }
  for (int s = 0; s < options.size_count; ++s) {
    long size = options.sizes[s];
    int window = window_for(size, options.window);
    double mbps = measure(rank, send_buffer, receive_slots, size, window, &options, requests);
    if (rank == 0) {
      if (window != options.window) printf("# window %d for size %ld\n", window, size);
      printf("%ld %.2f\n", size, mbps);
    }
#pragma ccc_checkpoint
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(requests);
  free(receive_slots);
  free(send_buffer);
  osu_report_peak_rss();
  MPI_Finalize();
  return 0;
}
