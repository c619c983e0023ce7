/* regrow: a large block at the top of the heap, filled, checkpointed, freed and allocated again
 * with calloc. After a restart the block's pages may be mapped from the checkpoint file; the
 * free trims the top of the heap, and calloc must still find zeros there (not the file's bytes
 * read back in). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kRounds = 4 };
static const size_t kBlock = (size_t)6 << 20;

static unsigned long sample_sum(const unsigned char *p, size_t n) {
  unsigned long sum = 0;
  for (size_t i = 0; i < n; i += 4096) sum += p[i];
  return sum;
}

static size_t nonzero_bytes(const unsigned char *p, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) count += p[i] != 0;
  return count;
}

int main(void) {
  for (int round = 0; round < kRounds; ++round) {
    unsigned char *block = malloc(kBlock);
    if (!block) return 1;
    memset(block, 0xA0 + round, kBlock);
#pragma ccc_checkpoint force
    unsigned long sum = sample_sum(block, kBlock);
    free(block);
    unsigned char *fresh = calloc(kBlock, 1);
    if (!fresh) return 1;
    printf("round %d: pattern sum %lu, nonzero bytes after calloc %zu\n", round, sum,
           nonzero_bytes(fresh, kBlock));
    memset(fresh, 0x5A, kBlock / 2);  /* dirty half before it goes back */
    free(fresh);
  }
  return 0;
}
