/* Linked with the whole of libc3mpi.a (every member, not only those a program needs): the link
 * fails if a hook is defined twice, e.g. by a protocol source and by passthrough_hooks.cpp. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("libc3mpi linked whole, %d rank\n", size);
  MPI_Finalize();
  return 0;
}
