/* What MPICH's own test suite found c3 doing differently from plain MPICH (two ranks):
 * objects the program frees while MPI still uses them (an operator under a pending
 * MPI_Iallreduce, 100 times over c3's 64 operator slots; a datatype under a persistent request;
 * a keyval its attributes still use), a struct datatype whose blocks are listed out of order
 * (its size equals its extent), the status fields MPI leaves alone (a send's MPI_Wait,
 * MPI_Mprobe/MPI_Mrecv's MPI_ERROR), a communicator duplication whose copy callback fails, and
 * MPI_Sendrecv_replace of a type whose true extent exceeds its extent. Rank 0 prints what it
 * saw; the output must equal the plain mpicc build's. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

static int deletes;
static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}
static int failing_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int peer = 1 - rank;

  /* An operator freed before the wait of the collective that uses it, over and over. */
  int total = 0;
  for (int i = 0; i < 100; ++i) {
    MPI_Op op;
    MPI_Request r;
    int mine = rank + i, sum = 0;
    MPI_Op_create(add_ints, 1, &op);
    MPI_Iallreduce(&mine, &sum, 1, MPI_INT, op, MPI_COMM_WORLD, &r);
    MPI_Op_free(&op);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    total += sum;
  }
  if (rank == 0) printf("operators freed under a pending collective: sum %d\n", total);

  /* A datatype freed while persistent requests use it. */
  MPI_Datatype dup;
  MPI_Type_dup(MPI_INT, &dup);
  int value = 0;
  MPI_Request persistent;
  if (rank == 0)
    MPI_Send_init(&value, 1, dup, peer, 1, MPI_COMM_WORLD, &persistent);
  else
    MPI_Recv_init(&value, 1, dup, peer, 1, MPI_COMM_WORLD, &persistent);
  MPI_Type_free(&dup);
  int received = 0;
  for (int i = 0; i < 3; ++i) {
    value = rank == 0 ? 40 + i : -1;
    MPI_Start(&persistent);
    MPI_Wait(&persistent, MPI_STATUS_IGNORE);
    received += value;
  }
  MPI_Request_free(&persistent);
  MPI_Bcast(&received, 1, MPI_INT, 1, MPI_COMM_WORLD);
  if (rank == 0) printf("persistent receives of a freed type: %d\n", received);

  /* A struct whose blocks are listed out of order: size == extent, but not a run of bytes. */
  int lengths[3] = {1, 1, 1};
  MPI_Aint displs[3] = {8, 0, 4};
  MPI_Datatype ints[3] = {MPI_INT, MPI_INT, MPI_INT}, shuffled;
  MPI_Type_create_struct(3, lengths, displs, ints, &shuffled);
  MPI_Type_commit(&shuffled);
  int block[6] = {1, 2, 3, 4, 5, 6}, got[6] = {0};
  MPI_Sendrecv(block, 2, shuffled, peer, 2, got, 6, MPI_INT, peer, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  if (rank == 0) printf("shuffled struct: %d %d %d %d %d %d\n", got[0], got[1], got[2], got[3],
                        got[4], got[5]);
  MPI_Type_free(&shuffled);

  /* Status fields a send's completion and a matched probe leave alone. */
  MPI_Status status;
  MPI_Request send;
  MPI_Isend(block, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &send);
  MPI_Message message;
  memset(&status, 0, sizeof status);
  status.MPI_ERROR = MPI_ERR_DIMS;
  MPI_Mprobe(peer, 3, MPI_COMM_WORLD, &message, &status);
  const int probe_error = status.MPI_ERROR;
  status.MPI_ERROR = MPI_ERR_TOPOLOGY;
  MPI_Mrecv(got, 1, MPI_INT, &message, &status);
  const int recv_error = status.MPI_ERROR;
  status.MPI_SOURCE = 33;
  status.MPI_TAG = 44;
  status.MPI_ERROR = 55;
  MPI_Wait(&send, &status);
  if (rank == 0)
    printf("statuses: mprobe error %s, mrecv error %s, send wait %d %d %d\n",
           probe_error == MPI_ERR_DIMS ? "kept" : "changed",
           recv_error == MPI_ERR_TOPOLOGY ? "kept" : "changed", status.MPI_SOURCE,
           status.MPI_TAG, status.MPI_ERROR);

  /* A keyval freed while an attribute uses it, then used through a copy of its handle. */
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int keyval, keyval_copy;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &keyval, NULL);
  keyval_copy = keyval;
  MPI_Comm_set_attr(comm, keyval, &value);
  MPI_Comm_free_keyval(&keyval);
  void *attribute = NULL;
  int found = 0;
  MPI_Comm_get_attr(comm, keyval_copy, &attribute, &found);
  MPI_Comm_delete_attr(comm, keyval_copy);
  MPI_Comm_free(&comm);
  if (rank == 0)
    printf("freed keyval: handle %s, attribute %s, %d delete callback(s)\n",
           keyval == MPI_KEYVAL_INVALID ? "invalid" : "kept", found ? "found" : "missing", deletes);

  /* A duplication whose attribute copy callback fails. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int failing;
  MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &failing, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, failing, &value);
  MPI_Comm copy = MPI_COMM_WORLD;
  const int rc = MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, failing);
  MPI_Comm_free_keyval(&failing);
  if (rank == 0)
    printf("failing copy callback: %s, %s\n", rc == MPI_SUCCESS ? "success" : "error",
           copy == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");

  /* MPI_Sendrecv_replace of a type whose true extent exceeds its extent. */
  MPI_Datatype pair, narrow;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_create_resized(pair, 0, 4, &narrow);  /* elements overlap by one int */
  MPI_Type_commit(&narrow);
  int ring[4];
  for (int i = 0; i < 4; ++i) ring[i] = 10 * rank + i;
  MPI_Sendrecv_replace(ring, 1, narrow, peer, 5, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) printf("sendrecv_replace: %d %d %d %d\n", ring[0], ring[1], ring[2], ring[3]);
  MPI_Type_free(&narrow);
  MPI_Type_free(&pair);

  MPI_Finalize();
  return 0;
}
