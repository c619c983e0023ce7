/* The remaining point-to-point calls between two ranks: matched probes (MPI_Mprobe/MPI_Mrecv,
 * MPI_Improbe/MPI_Imrecv), MPI_Iprobe, buffered sends with MPI_Buffer_attach/detach, synchronous
 * and ready sends, MPI_Cancel and MPI_Test_cancelled, MPI_Request_get_status, MPI_Testall,
 * MPI_Testany, MPI_Waitsome, MPI_Get_elements_x, MPI_Initialized/MPI_Finalized, MPI_Wtime, and
 * MPI_Waitall over small sends and receives with a null request among them, every status field
 * prefilled. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void sender(void) {
  int five[5] = {1, 2, 3, 4, 5}, one = 42, ten[10];
  double three[3] = {0.5, 1.5, 2.5};
  for (int i = 0; i < 10; ++i) ten[i] = i * i;
  MPI_Send(five, 5, MPI_INT, 0, 11, MPI_COMM_WORLD);
  MPI_Send(three, 3, MPI_DOUBLE, 0, 12, MPI_COMM_WORLD);
  MPI_Send(&one, 1, MPI_INT, 0, 13, MPI_COMM_WORLD);

  int size = 2 * (MPI_BSEND_OVERHEAD + (int)sizeof ten);
  char *buffer = malloc(size);
  MPI_Buffer_attach(buffer, size);
  MPI_Request request;
  MPI_Bsend(ten, 10, MPI_INT, 0, 14, MPI_COMM_WORLD);
  MPI_Ibsend(ten, 10, MPI_INT, 0, 15, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  char *detached;
  int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);
  if (detached != buffer || detached_size != size) MPI_Abort(MPI_COMM_WORLD, 20);
  free(buffer);

  MPI_Ssend(&one, 1, MPI_INT, 0, 16, MPI_COMM_WORLD);
  MPI_Issend(five, 5, MPI_INT, 0, 17, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);

  MPI_Barrier(MPI_COMM_WORLD); /* the receiver has posted tags 18 and 19 */
  MPI_Rsend(&one, 1, MPI_INT, 0, 18, MPI_COMM_WORLD);
  MPI_Irsend(five, 5, MPI_INT, 0, 19, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);

  MPI_Send(three, 3, MPI_DOUBLE, 0, 20, MPI_COMM_WORLD);
  MPI_Send(&one, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
  MPI_Send(five, 5, MPI_INT, 0, 22, MPI_COMM_WORLD);

  MPI_Send(five, 2, MPI_INT, 0, 23, MPI_COMM_WORLD);
  MPI_Recv(&one, 1, MPI_INT, 0, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(ten, 3 + one - 7, MPI_INT, 0, 25, MPI_COMM_WORLD);
}

static void print_status(const char *what, const MPI_Status *status) {
  int count = -1;
  MPI_Get_count(status, MPI_INT, &count);
  printf("  %s: source %d tag %d count %d error %d\n", what, status->MPI_SOURCE, status->MPI_TAG,
         count, status->MPI_ERROR);
}

/* Small messages of one MPI_Waitall: two receives, a send and a null request. */
static void waitall_small(void) {
  int two[2] = {0, 0}, three[10] = {0}, seven = 7;
  MPI_Request requests[4];
  MPI_Status statuses[4];
  for (int i = 0; i < 4; ++i) {
    MPI_Status_set_elements(&statuses[i], MPI_INT, 9);
    statuses[i].MPI_SOURCE = -5;
    statuses[i].MPI_TAG = -6;
    statuses[i].MPI_ERROR = 77;
  }
  MPI_Irecv(two, 2, MPI_INT, 1, 23, MPI_COMM_WORLD, &requests[0]);
  requests[1] = MPI_REQUEST_NULL;
  MPI_Isend(&seven, 1, MPI_INT, 1, 24, MPI_COMM_WORLD, &requests[2]);
  MPI_Irecv(three, 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &requests[3]);
  MPI_Waitall(4, requests, statuses);
  printf("waitall: %d %d %d, all null %d\n", two[1], three[2], three[3],
         requests[0] == MPI_REQUEST_NULL && requests[2] == MPI_REQUEST_NULL &&
             requests[3] == MPI_REQUEST_NULL);
  print_status("receive", &statuses[0]);
  print_status("null", &statuses[1]);
  print_status("send", &statuses[2]);
  print_status("receive, wildcards", &statuses[3]);
}

static void receiver(void) {
  MPI_Status status;
  MPI_Message message;
  int count, flag, ints[10];
  double doubles[3];

  MPI_Mprobe(1, 11, MPI_COMM_WORLD, &message, &status);
  MPI_Get_count(&status, MPI_INT, &count);
  MPI_Mrecv(ints, count, MPI_INT, &message, &status);
  printf("mprobe/mrecv: %d ints, last %d, message null %d\n", count, ints[count - 1],
         message == MPI_MESSAGE_NULL);

  flag = 0;
  while (!flag) MPI_Improbe(MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &flag, &message, &status);
  MPI_Request request;
  MPI_Imrecv(doubles, 3, MPI_DOUBLE, &message, &request);
  MPI_Wait(&request, &status);
  MPI_Count elements;
  MPI_Get_elements_x(&status, MPI_DOUBLE, &elements);
  printf("improbe/imrecv: from %d, %lld doubles, sum %.2f\n", status.MPI_SOURCE,
         (long long)elements, doubles[0] + doubles[1] + doubles[2]);

  flag = 0;
  while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
  MPI_Recv(ints, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, &status);
  printf("iprobe: tag %d value %d\n", status.MPI_TAG, ints[0]);

  for (int tag = 14; tag <= 15; ++tag) {
    MPI_Recv(ints, 10, MPI_INT, 1, tag, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    printf("buffered tag %d: %d ints, last %d\n", tag, count, ints[9]);
  }
  MPI_Recv(ints, 1, MPI_INT, 1, 16, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(ints + 1, 5, MPI_INT, 1, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("synchronous: %d %d\n", ints[0], ints[5]);

  MPI_Request ready[2];
  int ready_one, ready_five[5], indices[2], outcount, done = 0;
  MPI_Irecv(&ready_one, 1, MPI_INT, 1, 18, MPI_COMM_WORLD, &ready[0]);
  MPI_Irecv(ready_five, 5, MPI_INT, 1, 19, MPI_COMM_WORLD, &ready[1]);
  MPI_Barrier(MPI_COMM_WORLD);
  while (done < 2) {
    MPI_Waitsome(2, ready, &outcount, indices, MPI_STATUSES_IGNORE);
    done += outcount;
  }
  printf("ready: %d %d\n", ready_one, ready_five[4]);

  MPI_Request never;
  MPI_Irecv(ints, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &never);
  MPI_Cancel(&never);
  MPI_Wait(&never, &status);
  MPI_Test_cancelled(&status, &flag);
  printf("cancelled: %d\n", flag);

  MPI_Irecv(doubles, 3, MPI_DOUBLE, 1, 20, MPI_COMM_WORLD, &request);
  flag = 0;
  while (!flag) MPI_Request_get_status(request, &flag, MPI_STATUS_IGNORE);
  int still_active = request != MPI_REQUEST_NULL;
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  printf("request_get_status: active before wait %d, %.1f\n", still_active, doubles[2]);

  MPI_Request pair[2];
  MPI_Irecv(ints, 1, MPI_INT, 1, 21, MPI_COMM_WORLD, &pair[0]);
  MPI_Irecv(ints + 1, 5, MPI_INT, 1, 22, MPI_COMM_WORLD, &pair[1]);
  flag = 0;
  while (!flag) MPI_Testall(2, pair, &flag, MPI_STATUSES_IGNORE);
  int index;
  MPI_Testany(2, pair, &index, &flag, MPI_STATUS_IGNORE);
  printf("testall: %d %d, testany on finished requests: flag %d undefined %d\n", ints[0],
         ints[5], flag, index == MPI_UNDEFINED);
  waitall_small();
}

int main(int argc, char **argv) {
  int initialized = -1, finalized = -1;
  MPI_Initialized(&initialized);
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double start = MPI_Wtime();
  if (rank == 0) {
    printf("initialized before MPI_Init: %d\n", initialized);
    receiver();
  } else if (rank == 1) {
    sender();
  }
  int clock_ok = MPI_Wtime() >= start && MPI_Wtick() > 0;
  MPI_Finalize();
  MPI_Finalized(&finalized);
  if (rank == 0) printf("clock ok %d, finalized %d\n", clock_ok, finalized);
  return 0;
}
