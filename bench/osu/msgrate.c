/* msgrate.c - message rate of small messages from rank 0 to rank 1, receives pre-posted.
 *
 *   mpiexec -n 2 msgrate [-s LIST] [-b N] [-i X] [-w N] [-c COMPLETION]
 *                                            (options: osu_common.h; default size 8)
 *
 * A round: rank 0 starts a window of MPI_Isend and completes them with MPI_Waitall (with
 * `-c wait`: MPI_Wait on each in turn; `-c test`: MPI_Test on each in turn until it completes;
 * `-c waitany`, `waitsome`: that call until all completed; `-c testany`, `testsome`, `testall`:
 * that call polled until all completed), then waits for a 4-byte acknowledgement. Rank 1 has the
 * window's MPI_Irecv posted before the round starts: it completes them the same way, posts the
 * next round's receives, and only then acknowledges. So every message finds its receive posted (the matching fast path), unlike
 * bandwidth.c, where the sender may run ahead of the receives.
 * Prints "SIZE MESSAGES_PER_SECOND" of the median batch.
 */
#include "osu_common.h"

static const char kProgram[] = "msgrate";

static void post_receives(char *slots, long size, int window, MPI_Request *requests) {
  for (int w = 0; w < window; ++w)
    MPI_Irecv(slots + (size_t)w * (size_t)size, (int)size, MPI_CHAR, 0, 4, MPI_COMM_WORLD,
              &requests[w]);
}

static void complete(int completion, int window, MPI_Request *requests) {
  int index, flag, done = 0, indices[window];
  switch (completion) {
    case OSU_WAITALL:
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      return;
    case OSU_WAIT:
      for (int w = 0; w < window; ++w) MPI_Wait(&requests[w], MPI_STATUS_IGNORE);
      return;
    case OSU_TEST:
      for (int w = 0; w < window; ++w)
        for (flag = 0; !flag;) MPI_Test(&requests[w], &flag, MPI_STATUS_IGNORE);
      return;
    case OSU_WAITANY:
      for (int w = 0; w < window; ++w) MPI_Waitany(window, requests, &index, MPI_STATUS_IGNORE);
      return;
    case OSU_TESTANY:
      while (done < window) {
        MPI_Testany(window, requests, &index, &flag, MPI_STATUS_IGNORE);
        done += flag && index != MPI_UNDEFINED;
      }
      return;
    case OSU_WAITSOME:
    case OSU_TESTSOME:
      while (done < window) {
        int got = 0;
        if (completion == OSU_WAITSOME)
          MPI_Waitsome(window, requests, &got, indices, MPI_STATUSES_IGNORE);
        else
          MPI_Testsome(window, requests, &got, indices, MPI_STATUSES_IGNORE);
        done += got;
      }
      return;
    case OSU_TESTALL:
      for (flag = 0; !flag;) MPI_Testall(window, requests, &flag, MPI_STATUSES_IGNORE);
      return;
  }
}

static const char *completion_name(int completion) {
  static const char *const names[] = {"MPI_Waitall", "MPI_Wait each", "MPI_Test each",
                                      "MPI_Waitany", "MPI_Waitsome", "MPI_Testany polling",
                                      "MPI_Testsome polling", "MPI_Testall polling"};
  return names[completion];
}

/* Messages per second of one batch of `rounds` rounds (meaningful on rank 0). */
static double batch(int rank, char *send_buffer, char *slots, long size, int window, long rounds,
                    int completion, MPI_Request *requests) {
  int ack = 0;
  if (rank == 1) post_receives(slots, size, window, requests);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (long r = 0; r < rounds; ++r) {
    if (rank == 0) {
      for (int w = 0; w < window; ++w)
        MPI_Isend(send_buffer, (int)size, MPI_CHAR, 1, 4, MPI_COMM_WORLD, &requests[w]);
      complete(completion, window, requests);
      MPI_Recv(&ack, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      complete(completion, window, requests);
      if (r + 1 < rounds) post_receives(slots, size, window, requests);
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
  int explicit_sizes = 0;
  for (int i = 1; i + 1 < argc; i += 2) explicit_sizes |= strcmp(argv[i], "-s") == 0;
  if (!explicit_sizes) {
    options.sizes[0] = 8;
    options.size_count = 1;
  }
  long largest = osu_largest_size(&options);
  if (largest * options.window > (64L << 20)) osu_fail(kProgram, "size * window exceeds 64 MiB");

  char *send_buffer = osu_alloc_pages(kProgram, (size_t)largest);
  char *slots = osu_alloc_pages(kProgram, (size_t)largest * (size_t)options.window);
  MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)options.window);
  if (requests == NULL) osu_fail(kProgram, "out of memory");
  memset(send_buffer, rank + 1, (size_t)largest);
  memset(slots, 0, (size_t)largest * (size_t)options.window);
  osu_touch_all_peers();

  if (rank == 0) {
    printf("# msgrate: rank 0 -> 1, window %d of MPI_Isend, receives pre-posted, completed by %s, "
           "ack per window, %d ranks, %d batches\n", options.window,
           completion_name(options.completion), ranks, options.batches);
    printf("# size_bytes messages_per_s\n");
  }
  long rounds = osu_scaled(2000, options.iteration_scale, 2);
  for (int s = 0; s < options.size_count; ++s) {
    long size = options.sizes[s];
    double rates[OSU_MAX_BATCHES];
    batch(rank, send_buffer, slots, size, options.window, rounds / 10 + 1, options.completion,
          requests); /* warm-up */
    for (int b = 0; b < options.batches; ++b)
      rates[b] = batch(rank, send_buffer, slots, size, options.window, rounds, options.completion,
                       requests);
    if (rank == 0) printf("%ld %.0f\n", size, osu_median(rates, options.batches));
#pragma ccc_checkpoint
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(requests);
  free(slots);
  free(send_buffer);
  osu_report_peak_rss();
  MPI_Finalize();
  return 0;
}
