/* Large messages (above c3's 16 KiB bounce limit, so they travel split: a small header on the
 * program's communicator, the payload apart) through every point-to-point path, at 2 or 3 ranks:
 *   - the patterns that deadlock unless the receiver posts the payload's receive while it is
 *     blocked elsewhere (pre-posted exchanges, a receiver blocked in a receive, probe, synchronous
 *     send, wait, collective (barrier, allreduce, communicator creation) or test loop while its
 *     peer is blocked sending to it);
 *   - several pending receives that can take messages of one (source, tag), completed in reverse
 *     order (each must get the payload MPI gives it);
 *   - probes (sizes), matched probes, wildcards, every send mode, sendrecv, persistent requests,
 *     receive buffers larger than the message, small and large messages mixed on one channel,
 *     messages to self.
 * Every received payload is checked against the pattern its sender wrote, and the checksum,
 * count, source and tag of every receive are gathered to rank 0 (point-to-point only) and
 * printed. Output does not depend on timing. Arguments, if any, name the sections to run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
  K16 = 16 * 1024,
  K16P1 = 16 * 1024 + 1,
  K100 = 100003,
  M1 = (1 << 20) + 7,
  M3 = 3 << 20,
  CANARY = 0xee,
  CANARY_BYTES = 64,
  MAX_RESULTS = 400
};

typedef struct {
  char name[56];
  int source, tag;
  long long count;
  unsigned long long sum;
  long long errors;
} Result;

static int rank, nranks;
static Result results[MAX_RESULTS];
static int nresults;
static int section_argc;
static char **section_argv;

/* The byte pattern a sender writes for `seed`: distinct seeds give distinct contents. */
static unsigned char pattern(size_t i, unsigned seed) {
  return (unsigned char)(i * 31u + (i >> 9) * 7u + seed * 101u + (seed >> 3));
}

static void fill(void *buf, size_t bytes, unsigned seed) {
  unsigned char *p = buf;
  for (size_t i = 0; i < bytes; ++i) p[i] = pattern(i, seed);
}

/* A receive buffer of `capacity` bytes followed by canary bytes; all of it preset to the canary. */
static void *rbuf(size_t capacity) {
  unsigned char *p = malloc(capacity + CANARY_BYTES);
  if (!p) MPI_Abort(MPI_COMM_WORLD, 3);
  memset(p, CANARY, capacity + CANARY_BYTES);
  return p;
}

static void *sbuf(size_t bytes, unsigned seed) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) MPI_Abort(MPI_COMM_WORLD, 3);
  fill(p, bytes, seed);
  return p;
}

static unsigned seed_of(int from, int what) { return (unsigned)(from * 1000 + what); }

static int type_size(MPI_Datatype type) {
  int size = 0;
  MPI_Type_size(type, &size);
  return size;
}

/* Records a completed receive: `buf` (capacity bytes) should hold `expected` bytes of seed's
 * pattern, the status should count them in `type` and the rest of the buffer be untouched. */
static void note(const char *name, const MPI_Status *st, MPI_Datatype type, const void *buf,
                 size_t capacity, size_t expected, unsigned seed) {
  if (nresults == MAX_RESULTS) MPI_Abort(MPI_COMM_WORLD, 4);
  Result *r = &results[nresults++];
  snprintf(r->name, sizeof r->name, "%s", name);
  int count = -1;
  MPI_Get_count(st, type, &count);
  r->source = st->MPI_SOURCE;
  r->tag = st->MPI_TAG;
  r->count = count;
  r->errors = (long long)count * type_size(type) != (long long)expected;
  const unsigned char *p = buf;
  unsigned long long sum = 1469598103934665603ull;
  for (size_t i = 0; i < expected; ++i) {
    sum = (sum ^ p[i]) * 1099511628211ull;
    r->errors += p[i] != pattern(i, seed);
  }
  for (size_t i = expected; i < capacity + CANARY_BYTES; ++i) r->errors += p[i] != CANARY;
  r->sum = sum;
}

static int want(const char *section) {
  if (section_argc <= 1) return 1;
  for (int i = 1; i < section_argc; ++i)
    if (strcmp(section_argv[i], section) == 0) return 1;
  return 0;
}

static int left(void) { return (rank + nranks - 1) % nranks; }
static int right(void) { return (rank + 1) % nranks; }

/* --- every rank receives from its left neighbour while sending to its right one (a pairwise
 * exchange at 2 ranks): each pre-posts its receive, then blocks in its send. */
static void sec_exchange(void) {
  const size_t sizes[] = {K16P1, M1, M3};
  for (int k = 0; k < 3; ++k) {
    for (int mode = 0; mode < 3; ++mode) {
      const int what = 10 * k + mode, tag = 100 + what;
      const size_t n = sizes[k];
      void *in = rbuf(n), *out = sbuf(n, seed_of(rank, what));
      MPI_Request rq;
      MPI_Status st;
      MPI_Irecv(in, (int)n, MPI_BYTE, left(), tag, MPI_COMM_WORLD, &rq);
      if (mode == 0) {
        MPI_Send(out, (int)n, MPI_BYTE, right(), tag, MPI_COMM_WORLD);
      } else if (mode == 1) {
        MPI_Ssend(out, (int)n, MPI_BYTE, right(), tag, MPI_COMM_WORLD);
      } else {
        MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: a ready send is allowed */
        MPI_Rsend(out, (int)n, MPI_BYTE, right(), tag, MPI_COMM_WORLD);
      }
      MPI_Wait(&rq, &st);
      char name[56];
      const char *how = mode == 0 ? "send" : mode == 1 ? "ssend" : "rsend";
      snprintf(name, sizeof name, "exchange %s %zu", how, n);
      note(name, &st, MPI_BYTE, in, n, n, seed_of(left(), what));
      free(in);
      free(out);
    }
  }
  /* The same with a wildcard pre-posted receive and typed data. */
  const int ints = M1 / 4;
  int *in = rbuf((size_t)ints * 4), *out = sbuf((size_t)ints * 4, seed_of(rank, 40));
  MPI_Request rq;
  MPI_Status st;
  MPI_Irecv(in, ints, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
  MPI_Send(out, ints, MPI_INT, right(), 140, MPI_COMM_WORLD);
  MPI_Wait(&rq, &st);
  note("exchange wildcard ints", &st, MPI_INT, in, (size_t)ints * 4, (size_t)ints * 4,
       seed_of(left(), 40));
  free(in);
  free(out);
}

/* --- rank 0 (and 2) pre-post receives from their senders and enter a collective; the senders
 * block in their sends before entering it. */
static void sec_collective_entry(void) {
  const int tag = 200;
  if (rank == 0) {
    MPI_Request rq[2];
    void *in[2];
    int peers = 0;
    for (int from = 1; from < nranks && peers < 2; ++from, ++peers) {
      in[peers] = rbuf(M3);
      MPI_Irecv(in[peers], M3, MPI_BYTE, from, tag, MPI_COMM_WORLD, &rq[peers]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status st[2];
    MPI_Waitall(peers, rq, st);
    for (int i = 0; i < peers; ++i) {
      note("barrier entry", &st[i], MPI_BYTE, in[i], M3, M3 - (size_t)i * 5, seed_of(i + 1, 200));
      free(in[i]);
    }
  } else {
    void *out = sbuf(M3 - (size_t)(rank - 1) * 5, seed_of(rank, 200));
    MPI_Send(out, M3 - (rank - 1) * 5, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    free(out);
  }

  /* An allreduce whose result needs the sender: it enters only after its send completed. */
  int mine = rank + 1, total = 0;
  if (rank == 0) {
    void *in = rbuf(M1);
    MPI_Request rq;
    MPI_Status st;
    MPI_Irecv(in, M1, MPI_BYTE, 1, tag + 1, MPI_COMM_WORLD, &rq);
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Wait(&rq, &st);
    note("allreduce entry", &st, MPI_BYTE, in, M1, M1, seed_of(1, 201));
    free(in);
  } else if (rank == 1) {
    void *out = sbuf(M1, seed_of(1, 201));
    MPI_Send(out, M1, MPI_BYTE, 0, tag + 1, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(out);
  } else {
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  if (total != nranks * (nranks + 1) / 2) MPI_Abort(MPI_COMM_WORLD, 5);
}

/* --- rank 0 pre-posts a large receive from rank 1 and creates a communicator with everyone;
 * rank 1 sends only after the creation. Then the same with a duplicate freed again. */
static void sec_communicator_entry(void) {
  const int tag = 250;
  for (int k = 0; k < 2; ++k) {
    MPI_Comm made;
    if (rank == 0) {
      void *in = rbuf(M1);
      MPI_Request rq;
      MPI_Status st;
      MPI_Irecv(in, M1, MPI_BYTE, 1, tag + k, MPI_COMM_WORLD, &rq);
      if (k == 0)
        MPI_Comm_dup(MPI_COMM_WORLD, &made);
      else
        MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &made);
      MPI_Wait(&rq, &st);
      note(k ? "comm_split entry" : "comm_dup entry", &st, MPI_BYTE, in, M1, M1,
           seed_of(1, tag + k));
      free(in);
    } else {
      if (k == 0)
        MPI_Comm_dup(MPI_COMM_WORLD, &made);
      else
        MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &made);
      if (rank == 1) {
        void *out = sbuf(M1, seed_of(1, tag + k));
        MPI_Ssend(out, M1, MPI_BYTE, 0, tag + k, MPI_COMM_WORLD);
        free(out);
      }
    }
    int size = 0;
    MPI_Comm_size(made, &size);
    if (size != nranks) MPI_Abort(MPI_COMM_WORLD, 6);
    MPI_Comm_free(&made);
  }
}

/* --- rank 1 pre-posts the receive of a large message from rank 0, then blocks in something
 * rank 0 completes only after its own blocking large send to rank 1 returned. */
enum Blocked {
  B_RECV_SMALL, B_RECV_LARGE, B_PROBE, B_MPROBE, B_SSEND_SMALL, B_SSEND_LARGE, B_SEND_LARGE,
  B_WAIT, B_WAITANY, B_WAITALL, B_WAITSOME, B_SENDRECV, B_ANY_SOURCE_RECV, B_COUNT
};
static const char *const blocked_names[B_COUNT] = {
    "recv small", "recv large", "probe", "mprobe", "ssend small", "ssend large", "send large",
    "wait", "waitany", "waitall", "waitsome", "sendrecv", "any-source recv"};

/* The large send is standard, then synchronous: MPICH may complete a standard send once the
 * receiver's progress engine buffered it, a synchronous one needs the receive matched. */
static void sec_blocked(void) {
  if (rank > 1) return;
  const int other = 1 - rank;
  for (int sync = 0; sync < 2; ++sync)
  for (int b = 0; b < B_COUNT; ++b) {
    const int tag_large = 300 + 50 * sync + 2 * b, tag_then = tag_large + 1;
    const size_t large = M3 - (size_t)b, then = b == B_RECV_LARGE || b == B_SSEND_LARGE ||
                                                            b == B_SEND_LARGE
                                                        ? M1 + (size_t)b
                                                        : 100 + (size_t)b;
    char name[56];
    MPI_Status st;
    if (rank == 0) {
      void *out = sbuf(large, seed_of(0, tag_large));
      if (sync)
        MPI_Ssend(out, (int)large, MPI_BYTE, other, tag_large, MPI_COMM_WORLD);
      else
        MPI_Send(out, (int)large, MPI_BYTE, other, tag_large, MPI_COMM_WORLD);
      if (b == B_SSEND_SMALL || b == B_SSEND_LARGE || b == B_SEND_LARGE) {
        void *in = rbuf(then);
        MPI_Recv(in, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &st);
        snprintf(name, sizeof name, "blocked %s%s: reply", blocked_names[b], sync ? " (ssend)" : "");
        note(name, &st, MPI_BYTE, in, then, then, seed_of(1, tag_then));
        free(in);
      } else if (b == B_SENDRECV) {
        void *in = rbuf(then), *reply = sbuf(then, seed_of(0, tag_then));
        MPI_Sendrecv(reply, (int)then, MPI_BYTE, other, tag_then, in, (int)then, MPI_BYTE, other,
                     tag_then, MPI_COMM_WORLD, &st);
        note(sync ? "blocked sendrecv (ssend): reply" : "blocked sendrecv: reply", &st, MPI_BYTE, in, then, then, seed_of(1, tag_then));
        free(in);
        free(reply);
      } else {
        void *next = sbuf(then, seed_of(0, tag_then));
        MPI_Send(next, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD);
        free(next);
      }
      free(out);
      continue;
    }
    void *in = rbuf(large);
    MPI_Request pre;
    MPI_Irecv(in, (int)large, MPI_BYTE, b == B_ANY_SOURCE_RECV ? MPI_ANY_SOURCE : other,
              tag_large, MPI_COMM_WORLD, &pre);
    void *got = rbuf(then);
    MPI_Status gst;
    MPI_Request rq;
    MPI_Message message;
    int count = -1, index = -1, outcount = 0, indices[1];
    switch (b) {
      case B_RECV_SMALL:
      case B_RECV_LARGE:
        MPI_Recv(got, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &gst);
        break;
      case B_ANY_SOURCE_RECV:
        MPI_Recv(got, (int)then, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &gst);
        break;
      case B_PROBE:
        MPI_Probe(other, tag_then, MPI_COMM_WORLD, &gst);
        MPI_Get_count(&gst, MPI_BYTE, &count);
        MPI_Recv(got, count, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &gst);
        break;
      case B_MPROBE:
        MPI_Mprobe(other, tag_then, MPI_COMM_WORLD, &message, &gst);
        MPI_Get_count(&gst, MPI_BYTE, &count);
        MPI_Mrecv(got, count, MPI_BYTE, &message, &gst);
        break;
      case B_SSEND_SMALL:
      case B_SSEND_LARGE:
      case B_SEND_LARGE: {
        void *reply = sbuf(then, seed_of(1, tag_then));
        if (b == B_SEND_LARGE)
          MPI_Send(reply, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD);
        else
          MPI_Ssend(reply, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD);
        free(reply);
        break;
      }
      case B_WAIT:
        MPI_Irecv(got, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, &gst);
        break;
      case B_WAITANY:
        MPI_Irecv(got, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &rq);
        MPI_Waitany(1, &rq, &index, &gst);
        break;
      case B_WAITALL:
        MPI_Irecv(got, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &rq);
        MPI_Waitall(1, &rq, &gst);
        break;
      case B_WAITSOME:
        MPI_Irecv(got, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &rq);
        MPI_Waitsome(1, &rq, &outcount, indices, &gst);
        break;
      case B_SENDRECV: {
        void *reply = sbuf(then, seed_of(1, tag_then));
        MPI_Sendrecv(reply, (int)then, MPI_BYTE, other, tag_then, got, (int)then, MPI_BYTE, other,
                     tag_then, MPI_COMM_WORLD, &gst);
        free(reply);
        break;
      }
    }
    MPI_Wait(&pre, &st);
    snprintf(name, sizeof name, "blocked %s%s: large", blocked_names[b], sync ? " (ssend)" : "");
    note(name, &st, MPI_BYTE, in, large, large, seed_of(0, tag_large));
    if (b != B_SSEND_SMALL && b != B_SSEND_LARGE && b != B_SEND_LARGE) {
      snprintf(name, sizeof name, "blocked %s%s: then", blocked_names[b], sync ? " (ssend)" : "");
      note(name, &gst, MPI_BYTE, got, then, then, seed_of(0, tag_then));
    }
    free(in);
    free(got);
  }
}

/* --- the same, with rank 1 polling (MPI_Test and friends in a loop) instead of blocking: MPI's
 * progress rule lets the pre-posted receive, and so rank 0's send, complete meanwhile. */
enum Polled { P_TEST, P_TESTANY, P_TESTALL, P_TESTSOME, P_GET_STATUS, P_IPROBE, P_IMPROBE,
              P_COUNT };
static const char *const polled_names[P_COUNT] = {"test",   "testany", "testall",  "testsome",
                                                   "request_get_status", "iprobe", "improbe"};

static void sec_polling(void) {
  if (rank > 1) return;
  const int other = 1 - rank;
  for (int sync = 0; sync < 2; ++sync)
  for (int p = 0; p < P_COUNT; ++p) {
    const int tag_large = 400 + 20 * sync + 2 * p, tag_then = tag_large + 1;
    const size_t large = M3 - 100 - (size_t)p, then = 64 + (size_t)p;
    if (rank == 0) {
      void *out = sbuf(large, seed_of(0, tag_large)), *next = sbuf(then, seed_of(0, tag_then));
      if (sync)
        MPI_Ssend(out, (int)large, MPI_BYTE, other, tag_large, MPI_COMM_WORLD);
      else
        MPI_Send(out, (int)large, MPI_BYTE, other, tag_large, MPI_COMM_WORLD);
      MPI_Send(next, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD);
      free(out);
      free(next);
      continue;
    }
    void *in = rbuf(large), *got = rbuf(then);
    MPI_Request pre, rq = MPI_REQUEST_NULL;
    MPI_Status st, gst;
    MPI_Message message;
    MPI_Irecv(in, (int)large, MPI_BYTE, other, tag_large, MPI_COMM_WORLD, &pre);
    if (p != P_IPROBE && p != P_IMPROBE)
      MPI_Irecv(got, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &rq);
    int flag = 0, index, outcount = 0, indices[1];
    while (!flag) {
      switch (p) {
        case P_TEST: MPI_Test(&rq, &flag, &gst); break;
        case P_TESTANY: MPI_Testany(1, &rq, &index, &flag, &gst); break;
        case P_TESTALL: MPI_Testall(1, &rq, &flag, &gst); break;
        case P_TESTSOME:
          MPI_Testsome(1, &rq, &outcount, indices, &gst);
          flag = outcount == 1;
          break;
        case P_GET_STATUS:
          MPI_Request_get_status(rq, &flag, &gst);
          if (flag) MPI_Wait(&rq, &gst);
          break;
        case P_IPROBE:
          MPI_Iprobe(other, tag_then, MPI_COMM_WORLD, &flag, &gst);
          if (flag) MPI_Recv(got, (int)then, MPI_BYTE, other, tag_then, MPI_COMM_WORLD, &gst);
          break;
        case P_IMPROBE:
          MPI_Improbe(other, tag_then, MPI_COMM_WORLD, &flag, &message, &gst);
          if (flag) MPI_Mrecv(got, (int)then, MPI_BYTE, &message, &gst);
          break;
      }
    }
    MPI_Wait(&pre, &st);
    char name[56];
    snprintf(name, sizeof name, "polling %s%s: large", polled_names[p], sync ? " (ssend)" : "");
    note(name, &st, MPI_BYTE, in, large, large, seed_of(0, tag_large));
    snprintf(name, sizeof name, "polling %s%s: then", polled_names[p], sync ? " (ssend)" : "");
    note(name, &gst, MPI_BYTE, got, then, then, seed_of(0, tag_then));
    free(in);
    free(got);
  }

  /* Both ranks exchange with nonblocking sends and poll their send with MPI_Test. */
  for (int sync = 0; sync < 2; ++sync) {
    const int tag = 450 + sync;
    void *in = rbuf(M3), *out = sbuf(M3, seed_of(rank, tag));
    MPI_Request recv, send;
    MPI_Status st;
    MPI_Irecv(in, M3, MPI_BYTE, other, tag, MPI_COMM_WORLD, &recv);
    if (sync)
      MPI_Issend(out, M3, MPI_BYTE, other, tag, MPI_COMM_WORLD, &send);
    else
      MPI_Isend(out, M3, MPI_BYTE, other, tag, MPI_COMM_WORLD, &send);
    for (int flag = 0; !flag;) MPI_Test(&send, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, &st);
    note(sync ? "polling issend test exchange" : "polling isend test exchange", &st, MPI_BYTE, in,
         M3, M3, seed_of(other, tag));
    free(in);
    free(out);
  }
}

/* --- rank 1 sends several messages on one tag; rank 0 has posted a wildcard receive first and a
 * specific one after (both can take either message) and completes them in reverse order. MPI
 * gives the first message to the wildcard receive. Then rank 0 sends them to itself, after
 * posting the receives: MPICH matches both headers at once, so one call may complete both. */
enum Reverse { R_TEST, R_WAIT, R_WAITANY, R_WAITALL_LATE, R_TESTSOME, R_TESTALL, R_BLOCKING_RECV,
               R_PERSISTENT, R_SMALL_FIRST, R_LARGE_FIRST, R_THREE, R_COUNT };
static const char *const reverse_names[R_COUNT] = {
    "test", "wait", "waitany", "waitall late", "testsome", "testall", "blocking recv",
    "persistent", "small first", "large first", "three"};

static void sec_same_channel(void) {
  if (rank > 1) return;
  for (int self = 0; self < 2; ++self)
  for (int v = 0; v < R_COUNT; ++v) {
    const int tag = 500 + 20 * self + v, sender = self ? 0 : 1;
    if (self && rank != 0) continue;
    size_t sizes[3] = {20000 + (size_t)v, 70001 + (size_t)v, 300000 + (size_t)v};
    if (v == R_SMALL_FIRST) sizes[0] = 100;
    if (v == R_LARGE_FIRST) sizes[1] = 200;
    if (v == R_THREE) sizes[1] = 5000;
    const int messages = v == R_THREE ? 3 : 2;
    void *out[3];
    MPI_Request sends[3];
    if (rank == sender) {
      for (int i = 0; i < messages; ++i) out[i] = sbuf(sizes[i], seed_of(sender, tag * 10 + i));
    }
    if (rank == 1) {
      for (int i = 0; i < messages; ++i)
        MPI_Isend(out[i], (int)sizes[i], MPI_BYTE, 0, tag, MPI_COMM_WORLD, &sends[i]);
      MPI_Waitall(messages, sends, MPI_STATUSES_IGNORE);
      for (int i = 0; i < messages; ++i) free(out[i]);
      continue;
    }
    const size_t cap = 400000;
    void *in[3] = {rbuf(cap), rbuf(cap), rbuf(cap)};
    MPI_Request rq[3];
    MPI_Status st[3];
    int flag = 0, index, outcount, indices[3];
    if (v == R_PERSISTENT) {
      MPI_Recv_init(in[0], (int)cap, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &rq[0]);
      MPI_Recv_init(in[1], (int)cap, MPI_BYTE, sender, tag, MPI_COMM_WORLD, &rq[1]);
      MPI_Startall(2, rq);
    } else if (v == R_THREE) {
      MPI_Irecv(in[0], (int)cap, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
      MPI_Irecv(in[1], (int)cap, MPI_BYTE, sender, tag, MPI_COMM_WORLD, &rq[1]);
      MPI_Irecv(in[2], (int)cap, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &rq[2]);
    } else {
      MPI_Irecv(in[0], (int)cap, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &rq[0]);
      if (v != R_BLOCKING_RECV)
        MPI_Irecv(in[1], (int)cap, MPI_BYTE, sender, tag, MPI_COMM_WORLD, &rq[1]);
    }
    if (self)
      for (int i = 0; i < messages; ++i)
        MPI_Isend(out[i], (int)sizes[i], MPI_BYTE, 0, tag, MPI_COMM_WORLD, &sends[i]);
    switch (v) {
      case R_TEST:
      case R_SMALL_FIRST:
      case R_LARGE_FIRST:
        while (!flag) MPI_Test(&rq[1], &flag, &st[1]);
        for (flag = 0; !flag;) MPI_Test(&rq[0], &flag, &st[0]);
        break;
      case R_WAIT:
        MPI_Wait(&rq[1], &st[1]);
        MPI_Wait(&rq[0], &st[0]);
        break;
      case R_WAITANY: {
        MPI_Request reversed[2] = {rq[1], rq[0]};
        for (int k = 0; k < 2; ++k) {
          MPI_Status s;
          MPI_Waitany(2, reversed, &index, &s);
          st[1 - index] = s;
        }
        break;
      }
      case R_WAITALL_LATE:
      case R_PERSISTENT: {
        usleep(300000); /* both headers are in: one MPI call may complete both receives */
        MPI_Request reversed[2] = {rq[1], rq[0]};
        MPI_Status s[2];
        MPI_Waitall(2, reversed, s);
        st[1] = s[0];
        st[0] = s[1];
        break;
      }
      case R_TESTSOME: {
        usleep(300000);
        MPI_Request reversed[2] = {rq[1], rq[0]};
        for (int done = 0; done < 2;) {
          MPI_Status s[2];
          MPI_Testsome(2, reversed, &outcount, indices, s);
          for (int k = 0; k < outcount; ++k) st[1 - indices[k]] = s[k];
          if (outcount != MPI_UNDEFINED) done += outcount;
        }
        break;
      }
      case R_TESTALL: {
        usleep(300000);
        MPI_Request reversed[2] = {rq[1], rq[0]};
        MPI_Status s[2];
        while (!flag) MPI_Testall(2, reversed, &flag, s);
        st[1] = s[0];
        st[0] = s[1];
        break;
      }
      case R_BLOCKING_RECV:
        MPI_Recv(in[1], (int)cap, MPI_BYTE, sender, tag, MPI_COMM_WORLD, &st[1]);
        MPI_Wait(&rq[0], &st[0]);
        break;
      case R_THREE:
        MPI_Wait(&rq[2], &st[2]);
        MPI_Wait(&rq[1], &st[1]);
        MPI_Wait(&rq[0], &st[0]);
        break;
    }
    for (int i = 0; i < messages; ++i) {
      char name[56];
      snprintf(name, sizeof name, "same channel%s %s: receive %d", self ? " (self)" : "",
               reverse_names[v], i);
      note(name, &st[i], MPI_BYTE, in[i], cap, sizes[i], seed_of(sender, tag * 10 + i));
    }
    if (self) {
      MPI_Waitall(messages, sends, MPI_STATUSES_IGNORE);
      for (int i = 0; i < messages; ++i) free(out[i]);
    }
    if (v == R_PERSISTENT) {
      MPI_Request_free(&rq[0]);
      MPI_Request_free(&rq[1]);
    }
    for (int i = 0; i < 3; ++i) free(in[i]);
  }
}

/* --- probes report a split message's payload size; matched probes receive it. */
static void sec_probe(void) {
  if (rank > 1) return;
  const int ints = 75001, doubles = 200003;
  const size_t first = 300000, second = 500001;
  if (rank == 1) {
    void *a = sbuf((size_t)ints * 4, seed_of(1, 600)), *b = sbuf((size_t)doubles * 8, seed_of(1, 601));
    MPI_Send(a, ints, MPI_INT, 0, 600, MPI_COMM_WORLD);
    MPI_Send(b, doubles, MPI_DOUBLE, 0, 601, MPI_COMM_WORLD);
    const size_t edge[2] = {K16, K16P1};
    for (int i = 0; i < 2; ++i) {
      void *c = sbuf(edge[i], seed_of(1, 602 + i));
      MPI_Send(c, (int)edge[i], MPI_CHAR, 0, 602 + i, MPI_COMM_WORLD);
      free(c);
    }
    /* Two messages on one channel, four times: probe, iprobe, mprobe, improbe behind a receive. */
    for (int k = 0; k < 4; ++k) {
      void *x = sbuf(first + (size_t)k, seed_of(1, 610 + 2 * k)),
           *y = sbuf(second + (size_t)k, seed_of(1, 611 + 2 * k));
      MPI_Request rq[2];
      MPI_Isend(x, (int)(first + (size_t)k), MPI_BYTE, 0, 610 + k, MPI_COMM_WORLD, &rq[0]);
      MPI_Isend(y, (int)(second + (size_t)k), MPI_BYTE, 0, 610 + k, MPI_COMM_WORLD, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      free(x);
      free(y);
    }
    for (int k = 0; k < 3; ++k) {
      void *m = sbuf(M1 + (size_t)k, seed_of(1, 620 + k));
      MPI_Send(m, M1 + k, MPI_BYTE, 0, 620 + k, MPI_COMM_WORLD);
      free(m);
    }
    free(a);
    free(b);
    return;
  }
  MPI_Status st;
  int count = -1, flag = 0;
  MPI_Probe(1, 600, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  int *a = rbuf((size_t)count * 4);
  MPI_Recv(a, count, MPI_INT, 1, 600, MPI_COMM_WORLD, &st);
  note("probe ints", &st, MPI_INT, a, (size_t)count * 4, (size_t)ints * 4, seed_of(1, 600));
  free(a);

  while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  double *b = rbuf((size_t)count * 8);
  MPI_Recv(b, count, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
  note("iprobe doubles", &st, MPI_DOUBLE, b, (size_t)count * 8, (size_t)doubles * 8,
       seed_of(1, 601));
  free(b);

  for (int i = 0; i < 2; ++i) {
    MPI_Probe(1, 602 + i, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_CHAR, &count);
    void *c = rbuf((size_t)count);
    MPI_Recv(c, count, MPI_CHAR, 1, 602 + i, MPI_COMM_WORLD, &st);
    note(i ? "probe 16 KiB + 1" : "probe 16 KiB", &st, MPI_CHAR, c, (size_t)count,
         i ? K16P1 : K16, seed_of(1, 602 + i));
    free(c);
  }

  const char *const behind[4] = {"probe behind a receive", "iprobe behind a receive",
                                 "mprobe behind a receive", "improbe behind a receive"};
  for (int k = 0; k < 4; ++k) {
    const int tag = 610 + k;
    void *x = rbuf(M1), *y = NULL;
    MPI_Request rq;
    MPI_Message message;
    MPI_Status ps, ys, xs;
    MPI_Irecv(x, M1, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq);
    /* The receive takes the first message, so the probe sees the second. */
    if (k == 0) {
      MPI_Probe(1, tag, MPI_COMM_WORLD, &ps);
    } else if (k == 1) {
      for (flag = 0; !flag;) MPI_Iprobe(1, tag, MPI_COMM_WORLD, &flag, &ps);
    } else if (k == 2) {
      MPI_Mprobe(1, tag, MPI_COMM_WORLD, &message, &ps);
    } else {
      for (flag = 0; !flag;) MPI_Improbe(1, tag, MPI_COMM_WORLD, &flag, &message, &ps);
    }
    MPI_Get_count(&ps, MPI_BYTE, &count);
    y = rbuf((size_t)count);
    if (k < 2) {
      MPI_Recv(y, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &ys);
    } else if (k == 2) {
      MPI_Mrecv(y, count, MPI_BYTE, &message, &ys);
    } else {
      MPI_Request mr;
      MPI_Imrecv(y, count, MPI_BYTE, &message, &mr);
      MPI_Wait(&mr, &ys);
    }
    MPI_Wait(&rq, &xs);
    char name[56];
    snprintf(name, sizeof name, "%s: first", behind[k]);
    note(name, &xs, MPI_BYTE, x, M1, first + (size_t)k, seed_of(1, 610 + 2 * k));
    snprintf(name, sizeof name, "%s: probed", behind[k]);
    note(name, &ps, MPI_BYTE, y, (size_t)count, second + (size_t)k, seed_of(1, 611 + 2 * k));
    snprintf(name, sizeof name, "%s: second", behind[k]);
    note(name, &ys, MPI_BYTE, y, (size_t)count, second + (size_t)k, seed_of(1, 611 + 2 * k));
    free(x);
    free(y);
  }

  /* Matched probes with wildcards, and receives into larger buffers than the message. */
  for (int k = 0; k < 3; ++k) {
    MPI_Message message;
    MPI_Status ps, rs;
    if (k == 0) {
      MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &ps);
    } else {
      for (flag = 0; !flag;)
        MPI_Improbe(k == 1 ? 1 : MPI_ANY_SOURCE, k == 1 ? MPI_ANY_TAG : 620 + k, MPI_COMM_WORLD,
                    &flag, &message, &ps);
    }
    MPI_Get_count(&ps, MPI_BYTE, &count);
    const size_t cap = 2u << 20;
    void *m = rbuf(cap);
    if (k < 2) {
      MPI_Mrecv(m, (int)cap, MPI_BYTE, &message, &rs);
    } else {
      MPI_Request mr;
      MPI_Imrecv(m, (int)cap, MPI_BYTE, &message, &mr);
      MPI_Wait(&mr, &rs);
    }
    char name[56];
    snprintf(name, sizeof name, "matched wildcard %d: probed", k);
    note(name, &ps, MPI_BYTE, m, cap, M1 + (size_t)k, seed_of(1, 620 + k));
    snprintf(name, sizeof name, "matched wildcard %d: received", k);
    note(name, &rs, MPI_BYTE, m, cap, M1 + (size_t)k, seed_of(1, 620 + k));
    free(m);
  }
}

/* --- every other rank sends rank 0 one large message; rank 0 takes them with wildcards and
 * records them by source. */
static void sec_wildcard(void) {
  for (int round = 0; round < 2; ++round) {
    const int tag_base = 700 + 10 * round;
    if (round > 0) MPI_Barrier(MPI_COMM_WORLD); /* round 0's any-tag receives are over */
    if (rank > 2) continue;
    if (rank != 0) {
      const size_t n = 100000 + 12345 * (size_t)rank + (size_t)round;
      void *out = sbuf(n, seed_of(rank, tag_base));
      if (round == 0) {
        MPI_Send(out, (int)n, MPI_BYTE, 0, tag_base + rank, MPI_COMM_WORLD);
      } else {
        MPI_Request rq;
        MPI_Isend(out, (int)n, MPI_BYTE, 0, tag_base + rank, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      }
      free(out);
      continue;
    }
    const size_t cap = 200000;
    void *in[2] = {rbuf(cap), rbuf(cap)};
    MPI_Status st[2];
    const int senders = nranks - 1 < 2 ? nranks - 1 : 2;
    if (round == 0) {
      for (int i = 0; i < senders; ++i)
        MPI_Recv(in[i], (int)cap, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st[i]);
    } else {
      MPI_Request rq[2];
      for (int i = 0; i < senders; ++i)
        MPI_Irecv(in[i], (int)cap, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]);
      MPI_Waitall(senders, rq, st);
    }
    for (int from = 1; from <= senders; ++from)
      for (int i = 0; i < senders; ++i)
        if (st[i].MPI_SOURCE == from)
          note(round ? "any source irecv" : "any source recv", &st[i], MPI_BYTE, in[i], cap,
               100000 + 12345 * (size_t)from + (size_t)round, seed_of(from, tag_base));
    free(in[0]);
    free(in[1]);
  }
}

/* --- rank 0 sends rank 1 large messages in every send mode. */
static void sec_send_modes(void) {
  if (rank > 1) return;
  enum { MODES = 8 };
  static const char *const names[MODES] = {"ssend", "bsend", "ibsend", "rsend",
                                           "irsend", "isend", "issend", "send"};
  const size_t n = M1;
  if (rank == 0) {
    const int space = 2 * (M1 + MPI_BSEND_OVERHEAD);
    void *attached = malloc((size_t)space);
    MPI_Buffer_attach(attached, space);
    for (int m = 0; m < MODES; ++m) {
      const int tag = 800 + m;
      void *out = sbuf(n - (size_t)m, seed_of(0, tag));
      const int count = (int)n - m;
      MPI_Request rq = MPI_REQUEST_NULL;
      if (m == 3 || m == 4) {
        int ready;
        MPI_Recv(&ready, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      switch (m) {
        case 0: MPI_Ssend(out, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD); break;
        case 1: MPI_Bsend(out, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD); break;
        case 2: MPI_Ibsend(out, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq); break;
        case 3: MPI_Rsend(out, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD); break;
        case 4: MPI_Irsend(out, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq); break;
        case 5: MPI_Isend(out, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq); break;
        case 6: MPI_Issend(out, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq); break;
        case 7: MPI_Send(out, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD); break;
      }
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
      free(out);
    }
    void *detached;
    int size;
    MPI_Buffer_detach(&detached, &size);
    free(detached);
    return;
  }
  for (int m = 0; m < MODES; ++m) {
    const int tag = 800 + m;
    void *in = rbuf(n);
    MPI_Status st;
    if (m == 3 || m == 4) {
      MPI_Request rq;
      int ready = 1;
      MPI_Irecv(in, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq);
      MPI_Send(&ready, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
      MPI_Wait(&rq, &st);
    } else {
      MPI_Recv(in, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st);
    }
    char name[56];
    snprintf(name, sizeof name, "send mode %s", names[m]);
    note(name, &st, MPI_BYTE, in, n, n - (size_t)m, seed_of(0, tag));
    free(in);
  }
}

/* --- sendrecv with large buffers around the ring (and with itself). */
static void sec_sendrecv(void) {
  const size_t sizes[2] = {K16P1, M3};
  for (int k = 0; k < 2; ++k) {
    const int tag = 900 + k;
    void *in = rbuf(sizes[k]), *out = sbuf(sizes[k], seed_of(rank, tag));
    MPI_Status st;
    MPI_Sendrecv(out, (int)sizes[k], MPI_BYTE, right(), tag, in, (int)sizes[k], MPI_BYTE, left(),
                 tag, MPI_COMM_WORLD, &st);
    note(k ? "sendrecv 3 MiB" : "sendrecv 16 KiB + 1", &st, MPI_BYTE, in, sizes[k], sizes[k],
         seed_of(left(), tag));
    free(in);
    free(out);
  }
  const int ints = M1 / 4;
  int *buf = rbuf((size_t)ints * 4);
  fill(buf, (size_t)ints * 4, seed_of(rank, 910));
  MPI_Status st;
  MPI_Sendrecv_replace(buf, ints, MPI_INT, right(), 910, MPI_ANY_SOURCE, 910, MPI_COMM_WORLD, &st);
  note("sendrecv_replace ints", &st, MPI_INT, buf, (size_t)ints * 4, (size_t)ints * 4,
       seed_of(left(), 910));
  free(buf);

  void *in = rbuf(M1), *out = sbuf(M1, seed_of(rank, 920));
  MPI_Sendrecv(out, M1, MPI_BYTE, rank, 920, in, M1, MPI_BYTE, rank, 920, MPI_COMM_WORLD, &st);
  note("sendrecv self", &st, MPI_BYTE, in, M1, M1, seed_of(rank, 920));
  free(in);
  free(out);
}

/* --- persistent large sends and receives around the ring, restarted with new contents. */
static void sec_persistent(void) {
  const size_t n = M1 + 1;
  const int tag = 1000;
  void *in = rbuf(n + 4096), *out = malloc(n);
  MPI_Request rq[2];
  MPI_Recv_init(in, (int)n + 4096, MPI_BYTE, left(), tag, MPI_COMM_WORLD, &rq[0]);
  MPI_Send_init(out, (int)n, MPI_BYTE, right(), tag, MPI_COMM_WORLD, &rq[1]);
  for (int iteration = 0; iteration < 4; ++iteration) {
    fill(out, n, seed_of(rank, tag + iteration));
    memset(in, CANARY, n + 4096 + CANARY_BYTES);
    MPI_Status st[2];
    if (iteration % 2 == 0) {
      MPI_Startall(2, rq);
      MPI_Waitall(2, rq, st);
    } else {
      MPI_Start(&rq[0]);
      MPI_Start(&rq[1]);
      MPI_Wait(&rq[1], &st[1]);
      MPI_Wait(&rq[0], &st[0]);
    }
    char name[56];
    snprintf(name, sizeof name, "persistent iteration %d", iteration);
    note(name, &st[0], MPI_BYTE, in, n + 4096, n, seed_of(left(), tag + iteration));
  }
  MPI_Request_free(&rq[0]);
  MPI_Request_free(&rq[1]);
  free(in);
  free(out);
}

/* --- rank 1 sends messages smaller than rank 0's (large) receive buffers. */
static void sec_larger_buffer(void) {
  if (rank > 1) return;
  const size_t bytes[5] = {40000, K16P1, K16, 100, 24000};
  const MPI_Datatype types[5] = {MPI_INT, MPI_BYTE, MPI_BYTE, MPI_BYTE, MPI_DOUBLE};
  const size_t caps[5] = {1u << 20, M1, M1, M1, 800000};
  for (int k = 0; k < 5; ++k) {
    const int tag = 1100 + k, size = type_size(types[k]);
    if (rank == 1) {
      void *out = sbuf(bytes[k], seed_of(1, tag));
      MPI_Send(out, (int)(bytes[k] / (size_t)size), types[k], 0, tag, MPI_COMM_WORLD);
      free(out);
      continue;
    }
    void *in = rbuf(caps[k]);
    MPI_Status st;
    if (k % 2 == 0) {
      MPI_Recv(in, (int)(caps[k] / (size_t)size), types[k], 1, tag, MPI_COMM_WORLD, &st);
    } else {
      MPI_Request rq;
      MPI_Irecv(in, (int)(caps[k] / (size_t)size), types[k], 1, tag, MPI_COMM_WORLD, &rq);
      MPI_Wait(&rq, &st);
    }
    char name[56];
    snprintf(name, sizeof name, "larger buffer %zu bytes", bytes[k]);
    note(name, &st, types[k], in, caps[k], bytes[k], seed_of(1, tag));
    int elements = -1;
    MPI_Get_elements(&st, types[k], &elements);
    if ((size_t)elements * (size_t)size != bytes[k]) results[nresults - 1].errors += 1000;
    free(in);
  }
}

/* --- small and large messages on one (source, tag), in order, three ways. */
static void sec_mixed_order(void) {
  if (rank > 1) return;
  enum { N = 9 };
  const size_t sizes[N] = {10, 100000, 4000, K16P1, K16, (2u << 20) + 1, 1, 0, 300000};
  const size_t cap = (2u << 20) + 4096;
  for (int round = 0; round < 3; ++round) {
    const int tag = 1200 + round;
    if (rank == 1) {
      void *out[N];
      MPI_Request rq[N];
      for (int i = 0; i < N; ++i) {
        out[i] = sbuf(sizes[i], seed_of(1, tag * 10 + i));
        if (round == 1)
          MPI_Isend(out[i], (int)sizes[i], MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq[i]);
        else
          MPI_Send(out[i], (int)sizes[i], MPI_BYTE, 0, tag, MPI_COMM_WORLD);
      }
      if (round == 1) MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
      for (int i = 0; i < N; ++i) free(out[i]);
      continue;
    }
    void *in[N];
    MPI_Request rq[N];
    MPI_Status st[N];
    for (int i = 0; i < N; ++i) in[i] = rbuf(cap);
    if (round == 1) {
      for (int i = 0; i < N; ++i)
        MPI_Recv(in[i], (int)cap, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &st[i]);
    } else {
      for (int i = 0; i < N; ++i)
        MPI_Irecv(in[i], (int)cap, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq[i]);
      if (round == 0)
        MPI_Waitall(N, rq, st);
      else
        for (int i = N; i-- > 0;) MPI_Wait(&rq[i], &st[i]);
    }
    for (int i = 0; i < N; ++i) {
      char name[56];
      snprintf(name, sizeof name, "mixed round %d message %d", round, i);
      note(name, &st[i], MPI_BYTE, in[i], cap, sizes[i], seed_of(1, tag * 10 + i));
      free(in[i]);
    }
  }
}

/* --- large messages to itself: a pre-posted receive, then a blocking send. */
static void sec_self(void) {
  const int tag = 1300;
  void *in = rbuf(M3), *out = sbuf(M3, seed_of(rank, tag));
  MPI_Request rq;
  MPI_Status st;
  MPI_Irecv(in, M3, MPI_BYTE, rank, tag, MPI_COMM_WORLD, &rq);
  MPI_Send(out, M3, MPI_BYTE, rank, tag, MPI_COMM_WORLD);
  MPI_Wait(&rq, &st);
  note("self irecv then send", &st, MPI_BYTE, in, M3, M3, seed_of(rank, tag));
  memset(in, CANARY, M3 + CANARY_BYTES);
  MPI_Isend(out, M3, MPI_BYTE, rank, tag + 1, MPI_COMM_WORLD, &rq);
  MPI_Recv(in, M3, MPI_BYTE, MPI_ANY_SOURCE, tag + 1, MPI_COMM_WORLD, &st);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  note("self isend then recv", &st, MPI_BYTE, in, M3, M3, seed_of(rank, tag));
  free(in);
  free(out);
}

/* Rank 0 collects every rank's results with point-to-point messages and prints them. */
static int report(void) {
  const int tag = 9000;
  if (rank != 0) {
    MPI_Send(&nresults, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
    MPI_Send(results, nresults * (int)sizeof(Result), MPI_BYTE, 0, tag + 1, MPI_COMM_WORLD);
    return 0;
  }
  long long errors = 0;
  static Result theirs[MAX_RESULTS];
  for (int from = 0; from < nranks; ++from) {
    int n = nresults;
    const Result *list = results;
    if (from != 0) {
      MPI_Recv(&n, 1, MPI_INT, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(theirs, n * (int)sizeof(Result), MPI_BYTE, from, tag + 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      list = theirs;
    }
    for (int i = 0; i < n; ++i) {
      const Result *r = &list[i];
      printf("rank %d %-44s from %d tag %4d count %8lld sum %016llx errors %lld\n", from, r->name,
             r->source, r->tag, r->count, r->sum, r->errors);
      errors += r->errors;
    }
  }
  printf("%d ranks, total errors %lld\n", nranks, errors);
  return errors != 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  section_argc = argc;
  section_argv = argv;
  if (nranks < 2) {
    if (rank == 0) printf("needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  /* A barrier between sections: no message of one section is in flight in the next. */
  if (want("exchange")) sec_exchange();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("collective_entry")) sec_collective_entry();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("communicator_entry")) sec_communicator_entry();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("blocked")) sec_blocked();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("same_channel")) sec_same_channel();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("probe")) sec_probe();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("wildcard")) sec_wildcard();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("send_modes")) sec_send_modes();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("sendrecv")) sec_sendrecv();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("persistent")) sec_persistent();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("larger_buffer")) sec_larger_buffer();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("mixed_order")) sec_mixed_order();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("self")) sec_self();
  MPI_Barrier(MPI_COMM_WORLD);
  if (want("polling")) sec_polling();
  MPI_Barrier(MPI_COMM_WORLD);
  int failed = report();
  MPI_Finalize();
  return failed;
}
