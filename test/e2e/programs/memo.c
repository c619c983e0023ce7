/* memo.c - number puzzles with memoisation kept in function statics.
 *
 * Collatz chain lengths with a cache, partition numbers with a memo table, a sieve built once
 * on first use, and a few call counters, all in static locals of the functions that use them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SIZE 100000

static int collatz_length(unsigned long n) {
  static unsigned short cache[CACHE_SIZE];
  static long hits, misses;
  if (n == 0) {
    printf("collatz cache: %ld hits, %ld misses\n", hits, misses);
    return 0;
  }
  if (n == 1) return 1;
  if (n < CACHE_SIZE && cache[n] != 0) {
    hits++;
    return cache[n];
  }
  misses++;
  int len = 1 + collatz_length(n % 2 ? 3 * n + 1 : n / 2);
  if (n < CACHE_SIZE) cache[n] = (unsigned short)len;
  return len;
}

/* p(n), the number of partitions of n, modulo 1e9+7 (pentagonal number recurrence). */
static long partitions(int n) {
  static long memo[2001];
  static int known = 0;
  static int calls = 0;
  calls++;
  if (n < 0) return 0;
  if (known == 0) {
    memo[0] = 1;
    known = 1;
  }
  while (known <= n) {
    long sum = 0;
    int m = known;
    for (int k = 1;; k++) {
      int g1 = k * (3 * k - 1) / 2, g2 = k * (3 * k + 1) / 2;
      if (g1 > m) break;
      long term = memo[m - g1] + (g2 <= m ? memo[m - g2] : 0);
      sum += (k % 2 ? term : -term);
      sum %= 1000000007L;
    }
    memo[m] = (sum + 1000000007L) % 1000000007L;
    known++;
    if (known % 500 == 0) {
      printf("partitions: table filled to %d after %d calls\n", known, calls);
#pragma ccc_checkpoint force
    }
  }
  return memo[n];
}

static int is_prime(int n) {
  static char *composite = NULL;
  static int limit = 0;
  if (n < 2) return 0;
  if (n >= limit) {
    int new_limit = limit ? limit * 4 : 1024;
    while (new_limit <= n) new_limit *= 4;
    free(composite);
    composite = calloc((size_t)new_limit, 1);
    for (int i = 2; (long)i * i < new_limit; i++)
      if (!composite[i])
        for (int j = i * i; j < new_limit; j += i) composite[j] = 1;
    printf("sieve extended to %d\n", new_limit);
    limit = new_limit;
  }
  return !composite[n];
}

static const char *ordinal(int n) {
  static char buffer[4][24];
  static int next;
  char *out = buffer[next];
  next = (next + 1) % 4;
  const char *suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    else if (n % 10 == 2) suffix = "nd";
    else if (n % 10 == 3) suffix = "rd";
  }
  snprintf(out, sizeof buffer[0], "%d%s", n, suffix);
  return out;
}

static int next_report(void) {
  static int reports;
  return ++reports;
}

int main(void) {
  unsigned long best = 1;
  int best_len = 1;
  for (unsigned long n = 1; n < 300000; n++) {
    int len = collatz_length(n);
    if (len > best_len) {
      best_len = len;
      best = n;
    }
    if (n % 60000 == 0) {
      printf("%s report: up to %lu the longest chain starts at %lu (%d steps)\n",
             ordinal(next_report()), n, best, best_len);
#pragma ccc_checkpoint force
    }
  }
  collatz_length(0);

  long checksum = 0;
  for (int n = 0; n <= 2000; n += 7) checksum = (checksum * 31 + partitions(n)) % 1000000007L;
  long p100 = partitions(100);
  long p2000 = partitions(2000);
  printf("p(100) = %ld, p(2000) mod 1e9+7 = %ld, checksum %ld\n", p100, p2000, checksum);

  int twin = 0, count = 0;
  for (int n = 3; n < 200000; n += 2) {
    if (is_prime(n)) {
      count++;
      if (is_prime(n + 2)) twin++;
    }
    if (n % 50001 == 0) {
      printf("%s report: %d odd primes and %d twin pairs below %d\n", ordinal(next_report()),
             count, twin, n);
#pragma ccc_checkpoint force
    }
  }
  const char *a = ordinal(1), *b = ordinal(2), *c = ordinal(3), *d = ordinal(112);
  printf("%s, %s, %s and %s", a, b, c, d);
  printf(" (then %s): done after %d reports\n", ordinal(113), next_report() - 1);
  return 0;
}
