/* The statuses completion calls fill, field by field: MPI_Wait, Waitall, Test, Testall, Waitany,
 * Waitsome, Testany and Testsome over a small receive, a small send and a null request, every
 * status prefilled. MPICH sets only the cancelled flag of a send's status, leaves MPI_ERROR alone
 * for a null request, and MPI_Waitall (alone) sets MPI_ERROR of what it completes; c3 must do the
 * same. Rank 0 prints. */
#include <mpi.h>
#include <stdio.h>

static void prefill(MPI_Status *s) {
  MPI_Status_set_elements(s, MPI_INT, 9);
  s->MPI_SOURCE = -5;
  s->MPI_TAG = -6;
  s->MPI_ERROR = 77;
}

static void print_status(const char *what, const MPI_Status *s) {
  int count = -1, cancelled = -1;
  MPI_Get_count(s, MPI_INT, &count);
  MPI_Test_cancelled(s, &cancelled);
  printf("  %s: source %d tag %d count %d error %d cancelled %d\n", what, s->MPI_SOURCE, s->MPI_TAG,
         count, s->MPI_ERROR, cancelled);
}

static const char *const kCalls[] = {"Wait",    "Waitall",  "Test",    "Testall",
                                     "Waitany", "Waitsome", "Testany", "Testsome"};

/* Completes rq[0] (receive), rq[1] (send) and rq[2] (null) with call `how`; st[i] is the status
 * request i got. */
static void complete(int how, MPI_Request rq[3], MPI_Status st[3]) {
  int flag = 0, index, n, indices[3], left = 2;
  MPI_Status got[3];
  switch (how) {
    case 0:
      for (int i = 0; i < 3; ++i) MPI_Wait(&rq[i], &st[i]);
      break;
    case 1:
      MPI_Waitall(3, rq, st);
      break;
    case 2:
      for (int i = 0; i < 3; ++i)
        for (flag = 0; !flag;) MPI_Test(&rq[i], &flag, &st[i]);
      break;
    case 3:
      while (!flag) MPI_Testall(3, rq, &flag, st);
      break;
    case 4:
    case 6:
      while (left > 0) {
        prefill(&got[0]);
        if (how == 4) {
          MPI_Waitany(3, rq, &index, &got[0]);
          flag = 1;
        } else {
          MPI_Testany(3, rq, &index, &flag, &got[0]);
        }
        if (flag && index != MPI_UNDEFINED) st[index] = got[0], --left;
      }
      if (how == 4)
        MPI_Waitany(3, rq, &index, &st[2]);  /* none active: an empty status */
      else
        MPI_Testany(3, rq, &index, &flag, &st[2]);
      break;
    default:
      while (left > 0) {
        for (int i = 0; i < 3; ++i) prefill(&got[i]);
        if (how == 5)
          MPI_Waitsome(3, rq, &n, indices, got);
        else
          MPI_Testsome(3, rq, &n, indices, got);
        for (int k = 0; k < n; ++k) st[indices[k]] = got[k];
        left -= n;
      }
      break;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank < 2) {
    int peer = 1 - rank, value = 5 + rank, in[4] = {0};
    for (int how = 0; how < 8; ++how) {
      MPI_Request rq[3];
      MPI_Status st[3];
      for (int i = 0; i < 3; ++i) prefill(&st[i]);
      MPI_Irecv(in, 4, MPI_INT, peer, how, MPI_COMM_WORLD, &rq[0]);
      MPI_Isend(&value, 1, MPI_INT, peer, how, MPI_COMM_WORLD, &rq[1]);
      rq[2] = MPI_REQUEST_NULL;
      complete(how, rq, st);
      if (rank == 0) {
        printf("%s: got %d\n", kCalls[how], in[0]);
        print_status("receive", &st[0]);
        print_status("send", &st[1]);
        print_status("null", &st[2]);
      }
    }
  }
  MPI_Finalize();
  return 0;
}
