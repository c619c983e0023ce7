/* lent_bytes.c - blocking messages of 1-8 KiB from and into every kind of memory a program has.
 *
 * c3 may carry a blocking message's header in the 4 bytes before the program's buffer and puts
 * them back before the call returns (protocol/messages/borrowed_header.hpp). Every step each rank
 * passes messages around the ring with MPI_Send/MPI_Recv from and into: a global array at its
 * start and inside it, a function's static array, a local array of the calling function at three
 * depths of recursion and at several offsets (the first at the bottom of the frame), heap blocks
 * (page-aligned and not), read-only data (sent only; lending its bytes would crash), and a
 * buffer right after the int that a vector-type MPI_Irecv in flight writes, or a small MPI_Irecv
 * of a built-in type (c3's lane, which may lend bytes meanwhile). The bytes around
 * every buffer are checked after every call; a wrong byte, count or neighbour prints a line.
 * Rank 0 prints a checksum per step.
 *
 * Forced checkpoints are staggered (rank r at steps s with s % PERIOD == 1 + r, for 3 ranks):
 * the ring messages of a step cross the recovery line in both directions.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step_report.h"

#define STEPS 10
#define PERIOD 4
#define MAX_BYTES 8192
#define PAD 64

enum { TAG_RING = 31, TAG_SIDE = 32, TAG_GO = 33, TAG_REPORT = 34 };

#define S16 "0123456789abcdef"
#define S64 S16 S16 S16 S16
#define S256 S64 S64 S64 S64
#define S1K S256 S256 S256 S256
static const char text[] = S1K S1K S1K S1K "tail"; /* read-only data */

static unsigned char global_start[MAX_BYTES + PAD];
static unsigned char global_area[PAD + MAX_BYTES + 2 * PAD];

static int rank, size, left, right;
static unsigned long sum;

static unsigned char byte_of(int step, int sender, int what, int at) {
  return (unsigned char)(step * 131 + sender * 17 + what * 7 + at * 13 + (at >> 8));
}

static void say(int step, int what, const char *problem, int detail) {
  printf("rank %d step %d message %d: %s %d\n", rank, step, what, problem, detail);
}

/* Fills [area, area + PAD) and the PAD bytes after a message of `bytes` at area + PAD + offset
 * with a pattern, so every byte around the buffer can be checked. */
static void guard(unsigned char *buffer, int bytes, int before) {
  for (int i = 1; i <= before; ++i) buffer[-i] = (unsigned char)(0xc0 + i);
  for (int i = 0; i < PAD; ++i) buffer[bytes + i] = (unsigned char)(0x30 + i);
}

static void check_guard(const unsigned char *buffer, int bytes, int before, int step, int what) {
  for (int i = 1; i <= before; ++i)
    if (buffer[-i] != (unsigned char)(0xc0 + i)) {
      say(step, what, "byte before the buffer changed, at -", i);
      break;
    }
  for (int i = 0; i < PAD; ++i)
    if (buffer[bytes + i] != (unsigned char)(0x30 + i)) {
      say(step, what, "byte after the message changed, at +", i);
      break;
    }
}

/* Sends `bytes` of message `what` from `out` to the right while receiving as much from the left
 * into `in` (even ranks send first); checks what came and the guards of both buffers. `out_before`
 * / `in_before`: how many bytes before each buffer the guard covers. `fill`: write the
 * message into `out` first (read-only data is sent as it is). */
static void ring(int step, int what, const unsigned char *out, int out_before,
                 unsigned char *in, int in_before, int bytes, int fill) {
  if (fill) {
    unsigned char *writable = (unsigned char *)out;
    for (int at = 0; at < bytes; ++at) writable[at] = byte_of(step, rank, what, at);
    guard(writable, bytes, out_before);
  }
  memset(in, 0xee, (size_t)bytes);
  guard(in, bytes, in_before);
  MPI_Status status;
  for (int turn = 0; turn < 2; ++turn) {
    if ((turn == 0) == (rank % 2 == 0))
      MPI_Send(out, bytes, MPI_UNSIGNED_CHAR, right, TAG_RING, MPI_COMM_WORLD);
    else
      MPI_Recv(in, bytes, MPI_UNSIGNED_CHAR, left, TAG_RING, MPI_COMM_WORLD, &status);
  }
  int got = -1;
  MPI_Get_count(&status, MPI_UNSIGNED_CHAR, &got);
  if (got != bytes || status.MPI_SOURCE != left) say(step, what, "count", got);
  for (int at = 0; at < bytes; ++at) {
    const unsigned char want = fill ? byte_of(step, left, what, at) : (unsigned char)text[step + at];
    if (in[at] != want) {
      say(step, what, "differs at byte", at);
      break;
    }
  }
  if (fill) check_guard(out, bytes, out_before, step, what);
  check_guard(in, bytes, in_before, step, what);
  for (int at = 0; at < bytes; at += 61) sum = sum * 1099511628211UL + in[at];
}

static int size_of(int step, int what) { return 1024 + (step * 613 + what * 1597) % (MAX_BYTES - 1024 + 1); }

/* Local arrays at the bottom of this frame and a few levels down. */
static void on_the_stack(int step, int depth) {
  unsigned char local_in[MAX_BYTES + PAD];
  unsigned char local_out[PAD + MAX_BYTES + PAD];
  const int bytes = size_of(step, 10 + depth) - PAD;
  ring(step, 10 + depth, local_out + PAD + depth, PAD + depth, local_in, 0, bytes, 1);
  ring(step, 20 + depth, local_out + PAD, PAD, local_in + 4 + depth, 4 + depth, bytes, 1);
  if (depth < 2) on_the_stack(step, depth + 1);
}

/* Rank 0's message `what` of a step to rank 1: its bytes, and rank 1's check of them. */
static void fill_from_0(unsigned char *buffer, int bytes, int step, int what) {
  for (int at = 0; at < bytes; ++at) buffer[at] = byte_of(step, 0, what, at);
}
static void check_from_0(const unsigned char *buffer, int bytes, int step, int what) {
  for (int at = 0; at < bytes; ++at)
    if (buffer[at] != byte_of(step, 0, what, at)) {
      say(step, what, "differs at byte", at);
      break;
    }
}

/* A receive of a vector type (MPICH writes it straight into the program's memory) in flight
 * while the blocking receive right after its last int runs. */
static void beside_a_receive(int step, unsigned char *heap) {
  MPI_Datatype every_other;
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int *region = (int *)heap;
  unsigned char *buffer = heap + 3 * sizeof(int);
  const int bytes = size_of(step, 30);
  const int sender = rank == 0, receiver = rank == 1; /* between ranks 0 and 1 */
  if (receiver) {
    memset(region, 0, 3 * sizeof(int));
    MPI_Request side;
    MPI_Irecv(region, 1, every_other, 0, TAG_SIDE, MPI_COMM_WORLD, &side);
    MPI_Send(&step, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Recv(buffer, bytes, MPI_UNSIGNED_CHAR, 0, TAG_RING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&side, MPI_STATUS_IGNORE);
    if (region[0] != 100 + step || region[1] != 0 || region[2] != 200 + step)
      say(step, 30, "vector receive lost, int 2 is", region[2]);
    check_from_0(buffer, bytes, step, 30);
    sum = sum * 1099511628211UL + (unsigned long)region[2];
  } else if (sender) {
    int go = -1;
    MPI_Recv(&go, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const int pair[2] = {100 + step, 200 + step};
    MPI_Send(pair, 2, MPI_INT, 1, TAG_SIDE, MPI_COMM_WORLD);
    fill_from_0(buffer, bytes, step, 30);
    MPI_Send(buffer, bytes, MPI_UNSIGNED_CHAR, 1, TAG_RING, MPI_COMM_WORLD);
  }
  MPI_Type_free(&every_other);
}

/* The same with a small receive of the nonblocking lane (a built-in type, its message in a
 * bounce of c3's) in flight into the int right before the blocking receive's buffer, and a small
 * send of the lane in flight while the blocking send runs: c3 may lend bytes beside them. */
static void beside_small_messages(int step, unsigned char *heap) {
  int *side_int = (int *)heap;
  unsigned char *buffer = heap + sizeof(int);
  const int bytes = size_of(step, 31);
  if (rank == 1) {
    *side_int = 0;
    MPI_Request side;
    MPI_Irecv(side_int, 1, MPI_INT, 0, TAG_SIDE, MPI_COMM_WORLD, &side);
    MPI_Send(&step, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Recv(buffer, bytes, MPI_UNSIGNED_CHAR, 0, TAG_RING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&side, MPI_STATUS_IGNORE);
    if (*side_int != 300 + step) say(step, 31, "small receive lost, it holds", *side_int);
    check_from_0(buffer, bytes, step, 31);
    sum = sum * 1099511628211UL + (unsigned long)*side_int;
  } else if (rank == 0) {
    int go = -1;
    MPI_Recv(&go, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const int value = 300 + step;
    MPI_Request side;
    MPI_Isend(&value, 1, MPI_INT, 1, TAG_SIDE, MPI_COMM_WORLD, &side);
    fill_from_0(buffer, bytes, step, 31);
    MPI_Send(buffer, bytes, MPI_UNSIGNED_CHAR, 1, TAG_RING, MPI_COMM_WORLD);
    MPI_Wait(&side, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  left = (rank + size - 1) % size, right = (rank + 1) % size;
  static unsigned char function_static[PAD + MAX_BYTES + 2 * PAD];
  unsigned char *pages = NULL, *block = malloc(PAD + MAX_BYTES + PAD + 13);
  if (posix_memalign((void **)&pages, 4096, 4 * 4096) != 0 || block == NULL) return 1;
  unsigned long total = 0;

  for (int step = 0; step < STEPS; ++step) {
    sum = (unsigned long)step;
    ring(step, 0, global_start, 0, global_area + PAD + step % 8, PAD + step % 8, size_of(step, 0), 1);
    ring(step, 1, global_area + PAD + 1, PAD + 1, global_start, 0, size_of(step, 1), 1);
    ring(step, 2, function_static + PAD + 4, PAD + 4, pages + 4096, 0, size_of(step, 2), 1);
    ring(step, 3, pages + 4096 + PAD, PAD, block + PAD + 13, PAD + 13, size_of(step, 3), 1);
    ring(step, 4, (const unsigned char *)text + step, 0, function_static + PAD, PAD,
         size_of(step, 4) % 2048 + 1024, 0);
    on_the_stack(step, 0);
    beside_a_receive(step, pages + 2 * 4096 - (step % 4) * 64 - 2048);
    beside_small_messages(step, pages + 2 * 4096 - (step % 4) * 64 - 2048);
    total = total * 31 + sum;

    report_step(step, sum, rank, size, TAG_REPORT);
    if (step % PERIOD == 1 + rank) {
#pragma ccc_checkpoint force
    }
  }
  if (rank == 0) printf("total %016lx\n", total);
  free(pages);
  free(block);
  MPI_Finalize();
  return 0;
}
