/* A rank whose receives may get large (split) messages enters calls that block inside MPICH (a
 * barrier, an allreduce, a communicator split) while its senders send to it: it stalls them
 * first (protocol/messages/payload_window.hpp). Covers, at 3 ranks:
 *   - payloads sent from the program's buffer before the stall, their headers not yet matched:
 *     received into c3's memory, then found by MPI_Probe, MPI_Mprobe + MPI_Mrecv, MPI_Irecv
 *     and a receive of a derived datatype;
 *   - sends (standard, synchronous, nonblocking) that start during the stall and go from copies;
 *   - a wildcard receive (every rank may send), an intercommunicator, a communicator split;
 *   - the overlap of a conjugate-gradient step, many times (stall, copy, release, again).
 * Every payload is checked against its sender's pattern; rank 0 prints one line per check.
 * Output does not depend on timing; the sleeps only make the drained and copied paths likely. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BIG = 100003, INTS = 30000 };

static int rank, nranks;

static unsigned char pattern(size_t i, unsigned seed) {
  return (unsigned char)(i * 13u + (i >> 8) * 5u + seed * 71u);
}

static unsigned char *filled(size_t n, unsigned seed) {
  unsigned char *p = malloc(n);
  if (!p) MPI_Abort(MPI_COMM_WORLD, 3);
  for (size_t i = 0; i < n; ++i) p[i] = pattern(i, seed);
  return p;
}

static long errors_in(const unsigned char *p, size_t n, unsigned seed) {
  long errors = 0;
  for (size_t i = 0; i < n; ++i) errors += p[i] != pattern(i, seed);
  return errors;
}

/* Gathers (errors, count) from every rank and prints them at rank 0. */
static void report(const char *what, long errors, int count) {
  long all[2 * 16] = {0}, mine[2] = {errors, count};
  MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  printf("%s:", what);
  for (int r = 0; r < nranks; ++r) printf(" [%d] errors %ld count %ld", r, all[2 * r], all[2 * r + 1]);
  printf("\n");
}

/* Rank 0 waits for a large message in a barrier; ranks 1 and 2 first send it one more, with a tag
 * nobody receives yet, and the awaited one only once rank 0 is in the barrier. Rank 0 takes the
 * first one's payload before it blocks (its header unmatched) and finds it afterwards; the
 * awaited one comes from a copy. */
static void drained_then_found(int how) {
  const int awaited = 10 + how, later = 20 + how;
  long errors = 0;
  int count = 0;
  if (rank == 0) {
    unsigned char *in[2];
    MPI_Request rq[2];
    for (int s = 1; s <= 2; ++s) {
      in[s - 1] = malloc(BIG);
      MPI_Irecv(in[s - 1], BIG, MPI_BYTE, s, awaited, MPI_COMM_WORLD, &rq[s - 1]);
    }
    usleep(50000); /* the senders' first payloads come before the stall */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (int s = 1; s <= 2; ++s) errors += errors_in(in[s - 1], BIG, (unsigned)(s * 100 + awaited));
    for (int s = 1; s <= 2; ++s) {
      MPI_Status st;
      if (how == 0) { /* probe, then a plain receive */
        unsigned char *p = malloc(BIG);
        MPI_Probe(s, later, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        MPI_Recv(p, count, MPI_BYTE, s, later, MPI_COMM_WORLD, &st);
        errors += errors_in(p, BIG, (unsigned)(s * 100 + later));
        free(p);
      } else if (how == 1) { /* matched probe */
        MPI_Message m;
        unsigned char *p = malloc(BIG);
        MPI_Mprobe(s, later, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        MPI_Mrecv(p, count, MPI_BYTE, &m, &st);
        errors += errors_in(p, BIG, (unsigned)(s * 100 + later)) + (st.MPI_SOURCE != s);
        free(p);
      } else { /* a strided receive: every other int */
        int *p = calloc(2 * INTS, sizeof(int));
        MPI_Datatype every_other;
        MPI_Type_vector(INTS, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        MPI_Request r;
        MPI_Irecv(p, 1, every_other, s, later, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        const int *sent = (const int *)filled((size_t)INTS * sizeof(int), (unsigned)(s * 100 + later));
        for (int i = 0; i < INTS; ++i) errors += p[2 * i] != sent[i] || p[2 * i + 1] != 0;
        free((void *)sent);
        MPI_Type_free(&every_other);
        free(p);
      }
    }
    free(in[0]);
    free(in[1]);
  } else if (rank <= 2) {
    const size_t later_bytes = how == 2 ? (size_t)INTS * sizeof(int) : BIG;
    unsigned char *a = filled(BIG, (unsigned)(rank * 100 + awaited));
    unsigned char *b = filled(later_bytes, (unsigned)(rank * 100 + later));
    MPI_Request r;
    MPI_Isend(b, (int)later_bytes, MPI_BYTE, 0, later, MPI_COMM_WORLD, &r);
    usleep(100000); /* rank 0 waits in the barrier by now */
    MPI_Send(a, BIG, MPI_BYTE, 0, awaited, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    free(a);
    free(b);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  char what[64];
  snprintf(what, sizeof what, "drained, then %s", how == 0 ? "probed" : how == 1 ? "mprobed" : "strided");
  report(what, errors, count);
}

/* Rank 0 stalls everyone (a wildcard receive) before an allreduce; the others send after a
 * pause, so their sends start during the stall: standard, synchronous and nonblocking. */
static void copied_during_stall(void) {
  long errors = 0;
  int count = 0;
  int mine = rank, total = 0;
  if (rank == 0) {
    const int n = 3 * (nranks - 1);
    unsigned char *in = malloc((size_t)n * BIG);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)n);
    for (int k = 0; k < n; ++k)
      MPI_Irecv(in + (size_t)k * BIG, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[k]);
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)n);
    MPI_Waitall(n, rq, st);
    for (int k = 0; k < n; ++k) {
      errors += errors_in(in + (size_t)k * BIG, BIG, (unsigned)(st[k].MPI_SOURCE * 100 + st[k].MPI_TAG));
      int c = 0;
      MPI_Get_count(&st[k], MPI_BYTE, &c);
      count += c == BIG;
    }
    free(st);
    free(rq);
    free(in);
  } else {
    usleep(30000); /* rank 0 is in the allreduce by now, its senders stalled */
    unsigned char *p[3];
    for (int k = 0; k < 3; ++k) p[k] = filled(BIG, (unsigned)(rank * 100 + 30 + k));
    MPI_Request r;
    MPI_Isend(p[2], BIG, MPI_BYTE, 0, 32, MPI_COMM_WORLD, &r);
    MPI_Send(p[0], BIG, MPI_BYTE, 0, 30, MPI_COMM_WORLD);
    MPI_Ssend(p[1], BIG, MPI_BYTE, 0, 31, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    memset(p[0], 0, BIG); /* the program may reuse its buffers: the copies went out */
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < 3; ++k) free(p[k]);
  }
  errors += total != nranks * (nranks - 1) / 2;
  report("copied during a stall", errors, count);
}

/* The overlap of a conjugate-gradient step: each rank posts a large receive from its left
 * neighbour, sends to its right one, reduces, then waits. */
static void overlap_rounds(void) {
  long errors = 0;
  const int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
  unsigned char *in = malloc(BIG);
  for (int round = 0; round < 200; ++round) {
    unsigned char *out = filled(BIG, (unsigned)(rank * 1000 + round));
    MPI_Request rq[2];
    MPI_Irecv(in, BIG, MPI_BYTE, left, 40, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(out, BIG, MPI_BYTE, right, 40, MPI_COMM_WORLD, &rq[1]);
    double x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    errors += errors_in(in, BIG, (unsigned)(left * 1000 + round));
    errors += sum != (double)(nranks * (nranks - 1) / 2);
    free(out);
  }
  free(in);
  report("overlap rounds", errors, 200);
}

/* A large receive across an intercommunicator (ranks 0 | 1, 2) while rank 0 splits
 * MPI_COMM_WORLD; the remote sender sends before it reaches the split. */
static void intercomm_and_split(void) {
  long errors = 0;
  MPI_Comm local, inter, halves;
  const int side = rank == 0 ? 0 : 1;
  MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 1 : 0, 7, &inter);
  if (rank == 0) {
    unsigned char *in = malloc(BIG);
    MPI_Request r;
    MPI_Irecv(in, BIG, MPI_BYTE, 0, 50, inter, &r); /* remote rank 0 is world rank 1 */
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &halves);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    errors += errors_in(in, BIG, 150);
    free(in);
  } else {
    if (rank == 1) {
      unsigned char *out = filled(BIG, 150);
      MPI_Send(out, BIG, MPI_BYTE, 0, 50, inter);
      free(out);
    }
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &halves);
  }
  int size = 0;
  MPI_Comm_size(halves, &size);
  errors += size != nranks;
  MPI_Comm_free(&halves);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  report("intercommunicator and split", errors, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 3 || nranks > 16) {
    if (rank == 0) fprintf(stderr, "stalled_senders: needs 3 to 16 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int how = 0; how < 3; ++how) drained_then_found(how);
  copied_during_stall();
  overlap_rounds();
  intercomm_and_split();
  MPI_Finalize();
  return 0;
}
