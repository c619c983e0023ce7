/* bigheap.c - a program whose state is a large heap, to time one checkpoint and one restart.
 *
 *   usage: bigheap [MiB] [block KiB]     (defaults: 512 1024)
 *
 * Allocates MiB mebibytes of heap in blocks of `block KiB`, fills them with a pattern that
 * depends on every word's position, takes one forced checkpoint, prints
 * "bigheap: after checkpoint" on stderr right behind the pragma (a restarted run reaches the same
 * line), then checks every word and frees the blocks. Exit status 1 if any word is wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void fail(const char *message) {
  fprintf(stderr, "bigheap: %s\n", message);
  exit(2);
}

static long positive_arg(int argc, char **argv, int index, long fallback) {
  if (argc <= index) return fallback;
  char *end = NULL;
  long value = strtol(argv[index], &end, 10);
  if (*end != '\0' || value < 1 || value > 1L << 20) fail("arguments must be positive integers");
  return value;
}

static uint64_t pattern(size_t block, size_t word) {
  uint64_t x = (uint64_t)block * 0x9e3779b97f4a7c15ULL + (uint64_t)word + 1;
  x ^= x >> 31;
  return x * 0xbf58476d1ce4e5b9ULL;
}

int main(int argc, char **argv) {
  long total_mib = positive_arg(argc, argv, 1, 512);
  long block_kib = positive_arg(argc, argv, 2, 1024);
  size_t block_words = (size_t)block_kib * 1024 / sizeof(uint64_t);
  size_t blocks = (size_t)(total_mib * 1024 / block_kib);
  if (blocks == 0) fail("the heap must hold at least one block");

  uint64_t **heap = malloc(blocks * sizeof *heap);
  if (heap == NULL) fail("out of memory");
  for (size_t b = 0; b < blocks; ++b) {
    heap[b] = malloc(block_words * sizeof(uint64_t));
    if (heap[b] == NULL) fail("out of memory");
    for (size_t w = 0; w < block_words; ++w) heap[b][w] = pattern(b, w);
  }
  printf("bigheap: %zu blocks of %ld KiB\n", blocks, block_kib);
  fflush(stdout);

#pragma ccc_checkpoint force
  fprintf(stderr, "bigheap: after checkpoint\n");

  size_t wrong = 0;
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t w = 0; w < block_words; ++w) wrong += heap[b][w] != pattern(b, w);
    free(heap[b]);
  }
  free(heap);
  printf("bigheap: %zu wrong words\n", wrong);
  return wrong == 0 ? 0 : 1;
}
