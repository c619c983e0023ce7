/* ckpt_time.c - an MPI program that takes forced checkpoints of a known amount of heap.
 *
 *   mpiexec -n N ckpt_time [-h MIB] [-k CHECKPOINTS] [-e EXCHANGES] [-x BYTES] [-a 1]
 *                          (defaults: 64 MiB of heap per rank, 4 checkpoints, 20 exchanges of
 *                           64 KiB between checkpoints; -a 1: an MPI_Allreduce after every
 *                           exchange, as a solver reduces every step)
 *
 * Every rank fills MIB mebibytes of heap (1 MiB blocks). Then, CHECKPOINTS times: EXCHANGES ring
 * exchanges (MPI_Irecv from the left neighbour, MPI_Isend to the right one, MPI_Waitall), each
 * folding the received data into the heap, followed by `#pragma ccc_checkpoint force`. Built
 * with c3cc every rank prints "c3: checkpoint N committed (SIZE, SECONDS s)" on stderr; built
 * with mpicc the pragma is ignored, which gives the same program without checkpoints.
 *
 * Rank 0 prints (stdout): "checksum X" over every rank's heap (must be equal for both builds),
 * "loop_seconds S" (exchanges and checkpoints, rank 0's clock), one "pragma RANK K SECONDS AT"
 * line per rank and checkpoint (SECONDS: the time that rank spent in the pragma, the stall the
 * application sees; AT: when it entered the pragma, CLOCK_REALTIME in seconds, to compare with
 * the time c3's stderr lines arrive), and the "rss RANK KIB" lines of osu_common.h.
 */
#include <stdint.h>
#include <time.h>

#include "osu_common.h"

static const char kProgram[] = "ckpt_time";
enum { BLOCK_WORDS = (1 << 20) / sizeof(uint64_t), MAX_CHECKPOINTS = 1000 };

static uint64_t pattern(int rank, size_t block, size_t word) {
  uint64_t x = ((uint64_t)rank << 48) ^ ((uint64_t)block * 0x9e3779b97f4a7c15ULL) ^ (word + 1);
  x ^= x >> 29;
  return x * 0xbf58476d1ce4e5b9ULL;
}

/* Ring exchange of `words` words; folds what arrived into block `target`. */
static void exchange(int rank, int ranks, uint64_t *out, uint64_t *in, long words,
                     uint64_t *target) {
  int right = (rank + 1) % ranks, left = (rank + ranks - 1) % ranks;
  MPI_Request requests[2];
  MPI_Irecv(in, (int)words, MPI_UINT64_T, left, 9, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(out, (int)words, MPI_UINT64_T, right, 9, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  long limit = words < (long)BLOCK_WORDS ? words : (long)BLOCK_WORDS;
  for (long i = 0; i < limit; ++i) target[i] = target[i] * 3 + in[i];
  for (long i = 0; i < words; ++i) out[i] += in[i] ^ (uint64_t)i;
}

static double realtime_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static uint64_t heap_sum(uint64_t **blocks, long count) {
  uint64_t sum = 0;
  for (long b = 0; b < count; ++b)
    for (size_t i = 0; i < BLOCK_WORDS; ++i) sum = sum * 31 + blocks[b][i];
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  long heap_mib = 64, checkpoints = 4, exchanges = 20, exchange_bytes = 64 << 10, reduce = 0;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc)
      osu_fail(kProgram, "usage: [-h MIB] [-k CHECKPOINTS] [-e N] [-x BYTES] [-a 0|1]");
    if (strcmp(argv[i], "-h") == 0) heap_mib = osu_number(kProgram, argv[i + 1], 1, 1 << 16);
    else if (strcmp(argv[i], "-k") == 0)
      checkpoints = osu_number(kProgram, argv[i + 1], 1, MAX_CHECKPOINTS);
    else if (strcmp(argv[i], "-e") == 0) exchanges = osu_number(kProgram, argv[i + 1], 0, 1 << 20);
    else if (strcmp(argv[i], "-x") == 0)
      exchange_bytes = osu_number(kProgram, argv[i + 1], 8, 1 << 26);
    else if (strcmp(argv[i], "-a") == 0) reduce = osu_number(kProgram, argv[i + 1], 0, 1);
    else osu_fail(kProgram, "unknown option");
  }
  long words = exchange_bytes / (long)sizeof(uint64_t);

  uint64_t **blocks = malloc(sizeof(uint64_t *) * (size_t)heap_mib);
  uint64_t *out = malloc(sizeof(uint64_t) * (size_t)words);
  uint64_t *in = malloc(sizeof(uint64_t) * (size_t)words);
  /* Per checkpoint: seconds in the pragma, then the realtime it was entered. */
  double *pragma_times = malloc(sizeof(double) * 2 * (size_t)checkpoints);
  if (blocks == NULL || out == NULL || in == NULL || pragma_times == NULL)
    osu_fail(kProgram, "out of memory");
  for (long b = 0; b < heap_mib; ++b) {
    blocks[b] = malloc(sizeof(uint64_t) * BLOCK_WORDS);
    if (blocks[b] == NULL) osu_fail(kProgram, "out of memory");
    for (size_t i = 0; i < BLOCK_WORDS; ++i) blocks[b][i] = pattern(rank, (size_t)b, i);
  }
  for (long i = 0; i < words; ++i) out[i] = pattern(rank, 0, (size_t)i);
  osu_touch_all_peers();
  MPI_Barrier(MPI_COMM_WORLD);

  double start = MPI_Wtime();
  for (long c = 0; c < checkpoints; ++c) {
    for (long e = 0; e < exchanges; ++e) {
      exchange(rank, ranks, out, in, words, blocks[(c * exchanges + e) % heap_mib]);
      if (reduce) {
        uint64_t local = in[e % words], sum = 0;
        MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        out[0] ^= sum;
      }
    }
    pragma_times[2 * c + 1] = realtime_seconds();
    double before = MPI_Wtime();
#pragma ccc_checkpoint force
    pragma_times[2 * c] = MPI_Wtime() - before;
  }
  double loop_seconds = MPI_Wtime() - start;

  unsigned long long mine = heap_sum(blocks, heap_mib), total = 0;
  MPI_Reduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int per_rank = (int)(2 * checkpoints);
  double *all_pragma = rank == 0 ? malloc(sizeof(double) * (size_t)per_rank * (size_t)ranks) : NULL;
  if (rank == 0 && all_pragma == NULL) osu_fail(kProgram, "out of memory");
  MPI_Gather(pragma_times, per_rank, MPI_DOUBLE, all_pragma, per_rank, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  if (rank == 0) {
    printf("# ckpt_time: %d ranks, %ld MiB heap per rank, %ld checkpoints, %ld ring exchanges of "
           "%ld bytes before each%s\n", ranks, heap_mib, checkpoints, exchanges, exchange_bytes,
           reduce ? ", an MPI_Allreduce after each" : "");
    printf("checksum %llu\n", total);
    printf("loop_seconds %.6f\n", loop_seconds);
    for (int r = 0; r < ranks; ++r)
      for (long c = 0; c < checkpoints; ++c) {
        const double *times = all_pragma + (long)r * per_rank + 2 * c;
        printf("pragma %d %ld %.6f %.6f\n", r, c + 1, times[0], times[1]);
      }
    free(all_pragma);
  }
  for (long b = 0; b < heap_mib; ++b) free(blocks[b]);
  free(blocks);
  free(pragma_times);
  free(in);
  free(out);
  osu_report_peak_rss();
  MPI_Finalize();
  return 0;
}
