/* osu_common.h - what the MPI microbenchmarks in this folder share: options, message sizes,
 * the median of a few batch results, and each rank's peak resident memory.
 *
 * Options of latency.c, bandwidth.c and msgrate.c (each says which it uses):
 *   -s LIST   comma-separated message sizes in bytes (default: powers of 2, 1 B .. -M)
 *   -M BYTES  largest size of the default list (default 4 MiB)
 *   -b N      timed batches per size; the program prints the median batch (default 5)
 *   -i X      scale every iteration count by X, e.g. 0.1 for a quick look (default 1)
 *   -w N      window: messages in flight per round trip (bandwidth, message rate; default 64)
 *   -c HOW    how a window completes (message rate): `waitall` (one MPI_Waitall, the default),
 *             `wait` (MPI_Wait on each request in turn) or `test` (MPI_Test on each request in
 *             turn until it completes)
 *
 * Output (rank 0, stdout): lines starting with '#' describe the run; "SIZE VALUE" lines carry
 * the results; at the end, one "rss RANK KIB" line per rank with its peak resident set size
 * (VmHWM), read just before MPI_Finalize.
 */
#ifndef OSU_COMMON_H
#define OSU_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OSU_MAX_SIZES = 64, OSU_MAX_BATCHES = 101 };
enum { OSU_WAITALL, OSU_WAIT, OSU_TEST, OSU_WAITANY, OSU_WAITSOME, OSU_TESTANY, OSU_TESTSOME, OSU_TESTALL };

struct osu_options {
  long sizes[OSU_MAX_SIZES];
  int size_count;
  long max_size;
  int batches;
  double iteration_scale;
  int window;
  int completion; /* -c: OSU_WAITALL, OSU_WAIT, OSU_TEST, ... (msgrate.c) */
};

static inline void osu_fail(const char *program, const char *message) {
  fprintf(stderr, "%s: %s\n", program, message);
  int initialized = 0;
  MPI_Initialized(&initialized); /* options may be read before MPI_Init */
  if (initialized) MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2); /* MPI_Abort does not return; this keeps the compiler informed */
}

static inline long osu_number(const char *program, const char *text, long low, long high) {
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < low || value > high)
    osu_fail(program, "an option value is not a number in the allowed range");
  return value;
}

static inline void osu_parse_sizes(const char *program, const char *list,
                                   struct osu_options *options) {
  options->size_count = 0;
  const char *at = list;
  while (*at != '\0') {
    char item[32];
    size_t length = strcspn(at, ",");
    if (length == 0 || length >= sizeof item || options->size_count == OSU_MAX_SIZES)
      osu_fail(program, "bad -s list");
    memcpy(item, at, length);
    item[length] = '\0';
    options->sizes[options->size_count++] = osu_number(program, item, 1, 1L << 30);
    at += length;
    if (*at == ',') ++at;
  }
  if (options->size_count == 0) osu_fail(program, "empty -s list");
}

static inline void osu_parse_options(const char *program, int argc, char **argv,
                                     struct osu_options *options) {
  options->size_count = 0;
  options->max_size = 4L << 20;
  options->batches = 5;
  options->iteration_scale = 1.0;
  options->window = 64;
  options->completion = OSU_WAITALL;
  const char *size_list = NULL;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc || argv[i][0] != '-' || argv[i][1] == '\0' || argv[i][2] != '\0')
      osu_fail(program, "usage: [-s LIST] [-M BYTES] [-b N] [-i X] [-w N] [-c waitall|wait|test]");
    const char *value = argv[i + 1];
    switch (argv[i][1]) {
      case 's': size_list = value; break;
      case 'M': options->max_size = osu_number(program, value, 1, 1L << 30); break;
      case 'b': options->batches = (int)osu_number(program, value, 1, OSU_MAX_BATCHES); break;
      case 'w': options->window = (int)osu_number(program, value, 1, 1 << 16); break;
      case 'c':
        if (strcmp(value, "waitall") == 0) options->completion = OSU_WAITALL;
        else if (strcmp(value, "wait") == 0) options->completion = OSU_WAIT;
        else if (strcmp(value, "test") == 0) options->completion = OSU_TEST;
        else if (strcmp(value, "waitany") == 0) options->completion = OSU_WAITANY;
        else if (strcmp(value, "waitsome") == 0) options->completion = OSU_WAITSOME;
        else if (strcmp(value, "testany") == 0) options->completion = OSU_TESTANY;
        else if (strcmp(value, "testsome") == 0) options->completion = OSU_TESTSOME;
        else if (strcmp(value, "testall") == 0) options->completion = OSU_TESTALL;
        else osu_fail(program, "-c needs waitall, wait, test, waitany, waitsome, testany, testsome or testall");
        break;
      case 'i': {
        char *end = NULL;
        options->iteration_scale = strtod(value, &end);
        if (end == value || *end != '\0' || !(options->iteration_scale > 0.0))
          osu_fail(program, "-i needs a positive number");
        break;
      }
      default: osu_fail(program, "unknown option");
    }
  }
  if (size_list != NULL) {
    osu_parse_sizes(program, size_list, options);
  } else {
    for (long size = 1; size <= options->max_size; size *= 2)
      options->sizes[options->size_count++] = size;
  }
}

/* Whether the command line gives one of the options in `letters` (a model program's defaults
 * differ from osu_parse_options' where it does not). */
static inline int osu_option_given(int argc, char **argv, const char *letters) {
  for (int i = 1; i + 1 < argc; i += 2)
    if (argv[i][0] == '-' && argv[i][1] != '\0' && strchr(letters, argv[i][1]) != NULL) return 1;
  return 0;
}

/* Reads the options, initializes MPI and says which rank this is of how many. */
static inline void osu_start(const char *program, int *argc, char ***argv,
                             struct osu_options *options, int *rank, int *ranks) {
  osu_parse_options(program, *argc, *argv, options);
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, ranks);
}

static inline long osu_largest_size(const struct osu_options *options) {
  long largest = 1;
  for (int i = 0; i < options->size_count; ++i)
    if (options->sizes[i] > largest) largest = options->sizes[i];
  return largest;
}

/* Message buffers start on a page boundary in both builds, so the two allocators (glibc's and
 * c3's arena) do not hand the copy loops differently aligned buffers. Fails the run if out of
 * memory. */
static inline void *osu_alloc_pages(const char *program, size_t bytes) {
  void *memory = NULL;
  if (posix_memalign(&memory, 4096, bytes == 0 ? 1 : bytes) != 0)
    osu_fail(program, "out of memory");
  return memory;
}

/* count * scale, at least `least`. */
static inline long osu_scaled(long count, double scale, long least) {
  long scaled = (long)((double)count * scale);
  return scaled < least ? least : scaled;
}

/* Median of values[0..count) (sorts them; count is small). */
static inline double osu_median(double *values, int count) {
  for (int i = 1; i < count; ++i) {
    double value = values[i];
    int j = i;
    for (; j > 0 && values[j - 1] > value; --j) values[j] = values[j - 1];
    values[j] = value;
  }
  return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* Peak resident set size of this process in KiB (VmHWM), or -1 if unknown. */
static inline long long osu_peak_rss_kib(void) {
  FILE *status = fopen("/proc/self/status", "r");
  if (status == NULL) return -1;
  char line[256];
  long long kib = -1;
  while (fgets(line, sizeof line, status) != NULL)
    if (strncmp(line, "VmHWM:", 6) == 0) kib = strtoll(line + 6, NULL, 10);
  fclose(status);
  return kib;
}

/* Every rank exchanges one message with every other rank, so that each pair has communicated
 * (connections and any per-peer state of MPI or a layer above it exist) whatever the test. */
static inline void osu_touch_all_peers(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *in = malloc(sizeof(int) * (size_t)size);
  MPI_Request *requests = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
  if (in == NULL || requests == NULL) osu_fail("osu", "out of memory");
  int count = 0;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    MPI_Irecv(&in[peer], 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &requests[count++]);
    MPI_Isend(&rank, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &requests[count++]);
  }
  MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
  for (int peer = 0; peer < size; ++peer)
    if (peer != rank && in[peer] != peer) osu_fail("osu", "peer exchange delivered wrong data");
  free(requests);
  free(in);
}

/* Rank 0 prints "rss RANK KIB" for every rank. Call it last, before MPI_Finalize. */
static inline void osu_report_peak_rss(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long long mine = osu_peak_rss_kib();
  long long *all = rank == 0 ? malloc(sizeof(long long) * (size_t)size) : NULL;
  if (rank == 0 && all == NULL) osu_fail("osu", "out of memory");
  MPI_Gather(&mine, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) printf("rss %d %lld\n", r, all[r]);
    free(all);
  }
}

#endif
