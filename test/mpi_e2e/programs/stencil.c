/* A 2-D Jacobi stencil as real solvers write it: a periodic cartesian communicator
 * (MPI_Dims_create, MPI_Cart_create, MPI_Cart_shift), a row communicator (MPI_Cart_sub) and a
 * duplicate for diagnostics (MPI_Comm_dup), halo columns as a vector datatype, a user-defined
 * reduction operator, and collectives every step: MPI_Allreduce (blocking and nonblocking),
 * MPI_Bcast, MPI_Gather, an MPI_Ibarrier started before the pragma and completed after it.
 * Each rank takes its forced checkpoints at steps of its own, so collectives run before the
 * checkpoint on some ranks and after it on others; unforced pragmas follow C3_INTERVAL. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 24
#define STEPS 40

static double grid[N + 2][N + 2], next[N + 2][N + 2];

static double absolute(double x) { return x < 0 ? -x : x; }

/* |a| max, elementwise: the program's own operator. */
static void absmax(void *in, void *inout, int *len, MPI_Datatype *type) {
  if (*type != MPI_DOUBLE) MPI_Abort(MPI_COMM_WORLD, 3);
  double *a = in, *b = inout;
  for (int i = 0; i < *len; ++i) b[i] = absolute(a[i]) > absolute(b[i]) ? absolute(a[i]) : absolute(b[i]);
}

static void halo(MPI_Comm cart, MPI_Datatype column) {
  int up, down, left, right;
  MPI_Cart_shift(cart, 0, 1, &up, &down);
  MPI_Cart_shift(cart, 1, 1, &left, &right);
  MPI_Sendrecv(&grid[1][1], N, MPI_DOUBLE, up, 1, &grid[N + 1][1], N, MPI_DOUBLE, down, 1, cart,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&grid[N][1], N, MPI_DOUBLE, down, 2, &grid[0][1], N, MPI_DOUBLE, up, 2, cart,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&grid[1][1], 1, column, left, 3, &grid[1][N + 1], 1, column, right, 3, cart,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&grid[1][N], 1, column, right, 4, &grid[1][0], 1, column, left, 4, cart,
               MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart, row, diag;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int remain[2] = {0, 1};
  MPI_Cart_sub(cart, remain, &row);
  MPI_Comm_dup(cart, &diag);
  MPI_Comm_set_name(diag, "diagnostics");
  int me, coords[2];
  MPI_Comm_rank(cart, &me);
  MPI_Cart_coords(cart, me, 2, coords);
  MPI_Datatype column;
  MPI_Type_vector(N, 1, N + 2, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  MPI_Op op;
  MPI_Op_create(absmax, 1, &op);

  for (int i = 0; i < N + 2; ++i)
    for (int j = 0; j < N + 2; ++j)
      grid[i][j] = ((i + coords[0] * N) * 7 % 17) * 0.125 - ((j + coords[1] * N) * 5 % 13) * 0.25 +
                   0.01 * me;

  const int first = 8 + 3 * rank, second = 22 + 5 * rank;  /* forced checkpoints: rank's own */
  double history[STEPS];
  for (int step = 0; step < STEPS; ++step) {
    halo(cart, column);
    double change = 0;
    for (int i = 1; i <= N; ++i)
      for (int j = 1; j <= N; ++j) {
        next[i][j] = 0.25 * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] + grid[i][j + 1]);
        change += absolute(next[i][j] - grid[i][j]);
      }
    memcpy(grid, next, sizeof grid);
    double maxchange = 0, rowsum = 0, total = 0;
    MPI_Allreduce(&change, &maxchange, 1, MPI_DOUBLE, op, cart);
    MPI_Allreduce(&change, &rowsum, 1, MPI_DOUBLE, MPI_SUM, row);
    MPI_Request req;
    MPI_Iallreduce(&rowsum, &total, 1, MPI_DOUBLE, MPI_SUM, diag, &req);
    double scale = 0;
    if (me == 0) scale = 1.0 + 1e-3 * step;
    MPI_Bcast(&scale, 1, MPI_DOUBLE, 0, cart);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    double mine = grid[1][1] * scale, corners[64];
    MPI_Gather(&mine, 1, MPI_DOUBLE, corners, 1, MPI_DOUBLE, 0, diag);
    history[step] = total;
    if (me == 0) {
      double c = 0;
      for (int k = 0; k < size; ++k) c += corners[k];
      printf("step %2d max %.12e total %.12e corners %.12e\n", step, maxchange, total, c);
    }
    MPI_Request barrier;
    MPI_Ibarrier(diag, &barrier);
    if (step == first || step == second) {
#pragma ccc_checkpoint force
    }
#pragma ccc_checkpoint
    MPI_Wait(&barrier, MPI_STATUS_IGNORE);
  }
  double sum = 0;
  for (int i = 1; i <= N; ++i)
    for (int j = 1; j <= N; ++j) sum += grid[i][j];
  double all = 0;
  MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("checksum %.12e history %.12e\n", all, history[STEPS - 1]);
  MPI_Op_free(&op);
  MPI_Type_free(&column);
  MPI_Comm_free(&diag);
  MPI_Comm_free(&row);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
