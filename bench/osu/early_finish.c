/* early_finish.c - what ranks waiting in MPI_Finalize cost the ranks that still work.
 *
 *   mpiexec -n N early_finish [-s SECONDS_OF_WORK]      (default 0.5; N >= 2)
 *
 * The first half of the ranks compute (a floating-point loop sized to take about SECONDS on an
 * idle core, calibrated by rank 0 and broadcast) and then finalize; the other half reach
 * MPI_Finalize at once. On a machine with fewer cores than ranks, a waiting rank that polls takes
 * a core from a working one; plain MPICH's ranks wait in MPI_Finalize without polling. Every
 * working rank prints "work RANK SECONDS" (wall time of its loop) on stdout.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double spin(long iterations) {
  volatile double x = 0;
  for (long i = 0; i < iterations; ++i) x += 1e-9 * (double)i;
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  double seconds = 0.5;
  if (argc == 3 && strcmp(argv[1], "-s") == 0) seconds = atof(argv[2]);
  if (ranks < 2 || !(seconds > 0)) {
    if (rank == 0) fprintf(stderr, "early_finish: needs 2 ranks or more and -s SECONDS > 0\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long iterations = 0;
  if (rank == 0) { /* calibrate before anyone else works or waits */
    const long probe = 20000000;
    double start = MPI_Wtime();
    spin(probe);
    iterations = (long)((double)probe * seconds / (MPI_Wtime() - start));
  }
  MPI_Bcast(&iterations, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank < ranks / 2) {
    double start = MPI_Wtime();
    spin(iterations);
    printf("work %d %.4f\n", rank, MPI_Wtime() - start);
    fflush(stdout);
  }
#pragma ccc_checkpoint
  MPI_Finalize();
  return 0;
}
