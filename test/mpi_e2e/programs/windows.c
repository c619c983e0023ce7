/* windows.c - windows of mid-size messages completed by one MPI_Waitall, across checkpoints.
 *
 * Every step each rank sends a window of WINDOW messages (MPI_DOUBLE, MPI_INT or MPI_CHAR) to its
 * right neighbour and receives as many from its left one, all MPI_Isend/MPI_Irecv completed by
 * one MPI_Waitall with statuses. Three in four messages hold 1-8 KiB, every fourth a few bytes,
 * so request slots serve both sizes in turn. So many kilobytes in one call make c3 copy each
 * payload out as it arrives (small_completion.cpp), and the buffers start at every offset
 * modulo 64, so the payload's place in c3's bounce follows the buffer (piggyback::place_wire).
 * Then each rank passes one message of 1-8 KiB around the ring with blocking MPI_Send/MPI_Recv
 * (its header in 4 bytes before the buffer, lent by the heap block). Each rank checks every byte it received and the counts in the
 * statuses, and reports a checksum to rank 0, which prints one line per step.
 *
 * Forced checkpoints are staggered (rank r at steps s with s % PERIOD == 2 + r, for up to 4
 * ranks): the window rank r + 1 sends in the step rank r checkpoints is late at rank r, and the
 * window rank r sends after its checkpoint is early at rank r + 1, so some MPI_Waitall calls mix
 * messages of two epochs.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step_report.h"

#define STEPS 14
#define PERIOD 6
#define WINDOW 16
#define MAX_BYTES 8192
#define SLOT (MAX_BYTES + 64)

enum { TAG_WINDOW = 21, TAG_REPORT = 22, TAG_RING = 23 };

static MPI_Datatype types[3]; /* MPI_DOUBLE, MPI_INT, MPI_CHAR */
static const int type_sizes[3] = {8, 4, 1};

/* The message of (step, sender, index): its type and element count. */
static int kind_of(int step, int index) { return (step + index) % 3; }
static int count_of(int step, int index) {
  if (index % 4 == 3) return 1 + (step + index) % 5;  /* a few elements */
  int bytes = 1024 + ((step * 37 + index * 1013) % (MAX_BYTES - 1024 + 1));
  return bytes / type_sizes[kind_of(step, index)];
}

static unsigned char byte_of(int step, int sender, int index, int at) {
  return (unsigned char)(step * 131 + sender * 17 + index * 7 + at * 13 + (at >> 8));
}

/* Checks `bytes` bytes received from `sender` as message `index` of `step`; folds some of them
 * into *sum. */
static void check(const unsigned char *got, int bytes, int step, int sender, int index,
                  const char *what, int rank, unsigned long *sum) {
  for (int at = 0; at < bytes; ++at)
    if (got[at] != byte_of(step, sender, index, at)) {
      printf("rank %d step %d: %s %d differs at byte %d of %d\n", rank, step, what, index, at,
             bytes);
      break;
    }
  for (int at = 0; at < bytes; at += 61) *sum = *sum * 1099511628211UL + got[at];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  types[0] = MPI_DOUBLE, types[1] = MPI_INT, types[2] = MPI_CHAR;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;

  /* One area per slot, each buffer placed at its own offset modulo 64. */
  unsigned char *outgoing = malloc((size_t)WINDOW * SLOT), *incoming = malloc((size_t)WINDOW * SLOT);
  if (!outgoing || !incoming) return 1;
  unsigned long total = 0;

  for (int step = 0; step < STEPS; ++step) {
    MPI_Request requests[2 * WINDOW];
    MPI_Status statuses[2 * WINDOW];
    unsigned char *in[WINDOW];
    for (int i = 0; i < WINDOW; ++i) {
      const int count = count_of(step, i);
      in[i] = incoming + (size_t)i * SLOT + (size_t)((step * 5 + i * 11) % 64);
      memset(in[i], 0xee, (size_t)count * (size_t)type_sizes[kind_of(step, i)]);
      MPI_Irecv(in[i], count, types[kind_of(step, i)], left, TAG_WINDOW, MPI_COMM_WORLD,
                &requests[i]);
    }
    for (int i = 0; i < WINDOW; ++i) {
      const int count = count_of(step, i), bytes = count * type_sizes[kind_of(step, i)];
      unsigned char *out = outgoing + (size_t)i * SLOT + (size_t)((step * 3 + i * 7) % 64);
      for (int at = 0; at < bytes; ++at) out[at] = byte_of(step, rank, i, at);
      MPI_Isend(out, count, types[kind_of(step, i)], right, TAG_WINDOW, MPI_COMM_WORLD,
                &requests[WINDOW + i]);
    }
    MPI_Waitall(2 * WINDOW, requests, statuses);

    unsigned long sum = (unsigned long)step;
    for (int i = 0; i < WINDOW; ++i) {
      const int full = count_of(step, i);
      int got = -1;
      MPI_Get_count(&statuses[i], types[kind_of(step, i)], &got);
      const int bytes = full * type_sizes[kind_of(step, i)];
      if (got != full || statuses[i].MPI_SOURCE != left || statuses[i].MPI_TAG != TAG_WINDOW)
        printf("rank %d step %d: receive %d has count %d (expected %d), source %d, tag %d\n",
               rank, step, i, got, full, statuses[i].MPI_SOURCE, statuses[i].MPI_TAG);
      check(in[i], bytes, step, left, i, "receive", rank, &sum);
    }

    /* Around the ring with blocking calls: even ranks send first, odd ranks receive first. */
    const int ring_bytes = 1024 + (step * 613) % (MAX_BYTES - 1024 + 1);
    unsigned char *ring_out = outgoing + (size_t)((step * 7 + 3) % 64);
    unsigned char *ring_in = incoming + (size_t)((step * 13 + 5) % 64);
    for (int at = 0; at < ring_bytes; ++at) ring_out[at] = byte_of(step, rank, WINDOW, at);
    MPI_Status ring_status;
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (rank % 2 == 0))
        MPI_Send(ring_out, ring_bytes, MPI_CHAR, right, TAG_RING, MPI_COMM_WORLD);
      else
        MPI_Recv(ring_in, ring_bytes, MPI_CHAR, left, TAG_RING, MPI_COMM_WORLD, &ring_status);
    }
    int ring_got = -1;
    MPI_Get_count(&ring_status, MPI_CHAR, &ring_got);
    if (ring_got != ring_bytes) printf("rank %d step %d: ring count %d\n", rank, step, ring_got);
    check(ring_in, ring_bytes, step, left, WINDOW, "ring message", rank, &sum);
    total = total * 31 + sum;

    report_step(step, sum, rank, size, TAG_REPORT);
    if (step % PERIOD == 2 + rank) {
#pragma ccc_checkpoint force
    }
  }
  if (rank == 0) printf("total %016lx\n", total);
  free(outgoing);
  free(incoming);
  MPI_Finalize();
  return 0;
}
