/* farm_probe_race.c - a probe-driven task farm whose master stops logging before a worker does.
 *
 * Regression test for a gap in ending NonDet-Log (fixed in 0acac1e). A worker in NonDet-Log
 * logged the match of its MPI_Probe although the task came from a master that no longer logged.
 * After a restart the master does not replay its choices, it hands out the tasks live in the
 * order the requests come; the worker's replayed probe then announces a task it does not get
 * (the restart hangs or truncates). With the fix the master sends Logging-Ended to every rank
 * before anything unlogged, and a probe reads its control messages before logging a match.
 *
 * 3 ranks: master 0, workers 1 and 2; one checkpoint each, the master's first.
 *  - The master checkpoints, lets the workers go (they checkpoint after it), then waits in a
 *    blocking MPI_Recv for worker 1's token and 200 ms more: c3 reads no control messages
 *    while it blocks there, so when it enters c3 again (MPI_Mprobe) both workers wait inside
 *    MPI_Probe for a task, and it reads every Checkpoint-Initiated and All-Initiated at once,
 *    leaves NonDet-Log and serves the farm unlogged.
 *  - The workers read each other's control messages while they poll for 100 ms, then ask.
 *    In the killed run, run_mpi_case.sh preloads delay_send_shim, which holds back worker 2's
 *    All-Initiated to worker 1 (c3's control tag 3) for 500 ms, as a descheduled worker 2
 *    would: worker 1 gets both tasks while it lacks an All-Initiated, still in NonDet-Log.
 *  - C3_FAULT=site:2@0 kills the master after the farm (its second pragma visit), checkpoint 1
 *    committed everywhere. The restart has FARM_LATE_WORKER=1: worker 1 asks 300 ms late, so
 *    worker 2 gets the tasks this time. Without the fix worker 1's replayed probe expects task 0
 *    and the restart hangs.
 * The sleeps change only the timing: the plain mpicc build prints the same either way. Rank 0
 * prints everything, after the farm (the killed run prints nothing).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "control_polls.h"
#include "start_env.h"

#define NTASKS 2
#define MAX_TASK 32

enum { TAG_GO = 10, TAG_TOKEN = 11, TAG_ASK = 12, TAG_TASK = 13, TAG_STOP = 14, TAG_DONE = 15 };

static const int task_size[NTASKS] = {10, 20};

static void forced_checkpoint(void) {
#pragma ccc_checkpoint force
}

/* A plain pragma site: C3_FAULT=site:2 kills at its visit (the forced one is visit 1). */
static void site(void) {
#pragma ccc_checkpoint
}

static void master(void) {
  long result_of[NTASKS];
  int handed = 0, stopped = 0, asks = 0;
  forced_checkpoint();
  for (int w = 1; w <= 2; ++w) MPI_Send(NULL, 0, MPI_INT, w, TAG_GO, MPI_COMM_WORLD);
  MPI_Recv(NULL, 0, MPI_INT, 1, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  usleep(200000); /* both workers are inside MPI_Probe by now */
  while (stopped < 2) {
    long report[2]; /* the asking worker's previous task and its result, or -1 */
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &message, &status);
    MPI_Mrecv(report, 2, MPI_LONG, &message, &status);
    ++asks;
    if (report[0] >= 0) result_of[report[0]] = report[1];
    if (handed < NTASKS) {
      long task[MAX_TASK + 1];
      task[0] = handed;
      for (int i = 1; i <= task_size[handed]; ++i) task[i] = 1000L * (handed + 1) + i * i;
      MPI_Send(task, task_size[handed] + 1, MPI_LONG, status.MPI_SOURCE, TAG_TASK,
               MPI_COMM_WORLD);
      ++handed;
    } else {
      MPI_Send(NULL, 0, MPI_LONG, status.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
      ++stopped;
    }
  }
  long tasks_done = 0;
  for (int w = 1; w <= 2; ++w) {
    long count;
    MPI_Recv(&count, 1, MPI_LONG, w, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    tasks_done += count;
  }
  site();
  printf("farm: %d tasks, %d requests, %ld tasks done by the workers\n", NTASKS, asks,
         tasks_done);
  for (int t = 0; t < NTASKS; ++t)
    printf("task %d: %d values, result %ld\n", t, task_size[t], result_of[t]);
}

static void worker(int rank) {
  MPI_Recv(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  forced_checkpoint();
  poll_for_ms(100); /* every Checkpoint-Initiated read, All-Initiated sent (and held back) */
  if (rank == 1) {
    MPI_Send(NULL, 0, MPI_INT, 0, TAG_TOKEN, MPI_COMM_WORLD);
    char late[8];
    if (start_env("FARM_LATE_WORKER", late, sizeof late) && strcmp(late, "1") == 0)
      usleep(300000);
  } else {
    usleep(20000); /* worker 1 asks first */
  }
  long report[2] = {-1, 0}, count = 0;
  for (;;) {
    MPI_Send(report, 2, MPI_LONG, 0, TAG_ASK, MPI_COMM_WORLD);
    MPI_Status status;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == TAG_STOP) {
      MPI_Recv(NULL, 0, MPI_LONG, 0, TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      break;
    }
    int n;
    MPI_Get_count(&status, MPI_LONG, &n); /* the probe tells the task's size */
    long task[MAX_TASK + 1];
    MPI_Recv(task, n, MPI_LONG, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    report[0] = task[0];
    report[1] = 0;
    for (int i = 1; i < n; ++i) report[1] = report[1] * 31 + task[i];
    ++count;
  }
  /* Room to commit checkpoint 1 before the master, told we are done, is killed: on a loaded
   * machine a worker could still be in RecvOnly-Log there, and the restart found nothing
   * committed by every rank. */
  poll_for_ms(500);
  MPI_Send(&count, 1, MPI_LONG, 0, TAG_DONE, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0) printf("farm_probe_race needs 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0)
    master();
  else
    worker(rank);
  MPI_Finalize();
  return 0;
}
