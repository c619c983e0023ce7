/* Master-worker: the master hands out tasks and takes results from whichever worker answers
 * first (MPI_Probe with MPI_ANY_SOURCE and MPI_ANY_TAG, MPI_Get_count for the result's length).
 * Results are printed by task, so the output does not depend on the arrival order. */
#include <mpi.h>
#include <stdio.h>

#define TASKS 40
#define TAG_TASK 1
#define TAG_STOP 2
#define MAX_RESULT 16

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    long results[TASKS][MAX_RESULT];
    int lengths[TASKS];
    int next = 0, outstanding = 0;
    for (int w = 1; w < size; ++w) {
      if (next < TASKS) {
        MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
        ++next;
        ++outstanding;
      } else {
        MPI_Send(&next, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
      }
    }
    while (outstanding > 0) {
      MPI_Status status;
      int count, elements;
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_LONG, &count);
      MPI_Get_elements(&status, MPI_LONG, &elements);
      if (count != elements || count < 2 || count > MAX_RESULT) MPI_Abort(MPI_COMM_WORLD, 6);
      long buffer[MAX_RESULT];
      MPI_Recv(buffer, count, MPI_LONG, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      int task = (int)buffer[0];
      lengths[task] = count - 1;
      for (int i = 1; i < count; ++i) results[task][i - 1] = buffer[i];
      --outstanding;
      if (next < TASKS) {
        MPI_Send(&next, 1, MPI_INT, status.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
        ++next;
        ++outstanding;
      } else {
        MPI_Send(&next, 0, MPI_INT, status.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
      }
    }
    for (int t = 0; t < TASKS; ++t) {
      printf("task %2d:", t);
      for (int i = 0; i < lengths[t]; ++i) printf(" %ld", results[t][i]);
      printf("\n");
    }
  } else {
    for (;;) {
      int task;
      MPI_Status status;
      MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      if (status.MPI_TAG == TAG_STOP) break;
      long result[MAX_RESULT];
      int length = task % (MAX_RESULT - 1) + 1;
      result[0] = task;
      unsigned long x = task + 1;
      for (int i = 1; i <= length; ++i) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        result[i] = (long)(x >> 33) % 1000;
      }
      MPI_Send(result, length + 1, MPI_LONG, 0, 10 + rank, MPI_COMM_WORLD);
    }
  }
  MPI_Finalize();
  return 0;
}
