/* tasks.c - master and workers in rounds, results taken in whatever order they arrive.
 *
 * Each round rank 0 hands out tasks one at a time: a task to every worker, then the next task to
 * whichever worker returns a result first. It polls with MPI_Iprobe(MPI_ANY_SOURCE) and counts
 * the unsuccessful polls. Which worker gets which task, and the poll counts, vary from run to run,
 * so they are never printed; instead the master keeps its own record of what it sent to each
 * worker, the workers keep theirs, and at the end the master checks that both agree. A restart
 * that replayed the master's choices differently from the run the workers' checkpoints saw would
 * make them disagree. The printed output (results by task, one checksum per round) depends only
 * on the tasks.
 *
 * Forced checkpoints are staggered by rank (round % PERIOD == 3 + rank): a worker's results of
 * the round before its checkpoint reach a master that has already checkpointed (late messages);
 * the master's tasks of that round reach the worker before its checkpoint (early messages).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 26
#define PERIOD 8
#define TASKS_PER_WORKER 3

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_END_ROUND = 3, TAG_SUMMARY = 4 };

struct task { long id, input, polls; };
struct tally { long count, id_mix, polls; };

static long work(long input) {
  unsigned long x = (unsigned long)input;
  int rounds = (int)(input % 50) + 10;
  for (int i = 0; i < rounds; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  return (long)(x >> 20);
}

static long mix_id(long id) { return (long)(((unsigned long)id * 0x9E3779B97F4A7C15UL) >> 7); }

static void record(struct tally *t, const struct task *task) {
  t->count += 1;
  t->id_mix ^= mix_id(task->id);
  t->polls += task->polls;
}

static void master(int workers) {
  int tasks = TASKS_PER_WORKER * workers;
  long *results = malloc(tasks * sizeof *results);
  struct tally *sent = calloc(workers + 1, sizeof *sent);
  unsigned long state = 1469598103934665603UL;
  long polls = 0;

  for (int round = 1; round <= ROUNDS; ++round) {
    if (round % PERIOD == 3) {
#pragma ccc_checkpoint force
    }
    int next = 0, done = 0;
    struct task task;
    for (int w = 1; w <= workers; ++w, ++next) {
      task.id = round * 100L + next;
      task.input = (long)((state >> 8) % 100000) + next * 37L;
      task.polls = polls;
      record(&sent[w], &task);
      MPI_Send(&task, 3, MPI_LONG, w, TAG_TASK, MPI_COMM_WORLD);
    }
    while (done < tasks) {
      int arrived = 0;
      MPI_Status status;
      while (!arrived) {
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &arrived, &status);
        if (!arrived) ++polls;
      }
      long result[2];
      int worker = status.MPI_SOURCE;
      MPI_Recv(result, 2, MPI_LONG, worker, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      results[result[0] - round * 100L] = result[1];
      ++done;
      if (next < tasks) {
        task.id = round * 100L + next;
        task.input = (long)((state >> 8) % 100000) + next * 37L;
        task.polls = polls;
        record(&sent[worker], &task);
        MPI_Send(&task, 3, MPI_LONG, worker, TAG_TASK, MPI_COMM_WORLD);
        ++next;
      }
    }
    /* the same type signature as a task: the workers receive both with one MPI_Recv */
    struct task end = {round, 0, 0};
    for (int w = 1; w <= workers; ++w)
      MPI_Send(&end, 3, MPI_LONG, w, TAG_END_ROUND, MPI_COMM_WORLD);
    for (int t = 0; t < tasks; ++t) state = (state ^ (unsigned long)results[t]) * 1099511628211UL;
    printf("round %2d: %d tasks, first %ld, last %ld, state %016lx\n", round, tasks, results[0],
           results[tasks - 1], state);
  }

  int agree = 1;
  for (int w = 1; w <= workers; ++w) {
    struct tally theirs;
    MPI_Recv(&theirs, 3, MPI_LONG, w, TAG_SUMMARY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (theirs.count != sent[w].count || theirs.id_mix != sent[w].id_mix ||
        theirs.polls != sent[w].polls) {
      printf("worker %d disagrees with the master's record of what it was sent\n", w);
      agree = 0;
    }
  }
  printf("%d workers, %d rounds: workers agree with the master: %s\n", workers, ROUNDS,
         agree ? "yes" : "NO");
  free(sent);
  free(results);
}

static void worker(int rank) {
  struct tally received = {0, 0, 0};
  for (int round = 1; round <= ROUNDS; ++round) {
    if (round % PERIOD == 3 + rank) {
#pragma ccc_checkpoint force
    }
    for (;;) {
      struct task task;
      MPI_Status status;
      MPI_Recv(&task, 3, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      if (status.MPI_TAG == TAG_END_ROUND) break;
      record(&received, &task);
      long result[2] = {task.id, work(task.input)};
      MPI_Send(result, 2, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
  }
  MPI_Send(&received, 3, MPI_LONG, 0, TAG_SUMMARY, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    printf("tasks needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0)
    master(size - 1);
  else
    worker(rank);
  MPI_Finalize();
  return 0;
}
