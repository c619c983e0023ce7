// The hooks of protocol/mpi_functions.txt that do nothing but call MPICH, until the C3 protocol
// implements them. Every hook declared in the generated mpi_hooks.hpp is defined exactly once in
// libc3mpi: a missing hook fails the link of every MPI program, a hook defined twice fails the
// protocol.hooks_link test (it links the whole archive).
//
// To implement a hook, define it in the protocol source that handles it (same signature,
// noexcept) and delete it here. See docs/protocol-layer.md.
#include "mpi_hooks.hpp"

namespace c3::mpi {

// --- send

int on_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
            MPI_Comm comm) noexcept {
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int on_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) noexcept {
  return PMPI_Bsend(buf, count, datatype, dest, tag, comm);
}

int on_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) noexcept {
  return PMPI_Ssend(buf, count, datatype, dest, tag, comm);
}

int on_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) noexcept {
  return PMPI_Rsend(buf, count, datatype, dest, tag, comm);
}

int on_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request) noexcept {
  return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

int on_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) noexcept {
  return PMPI_Ibsend(buf, count, datatype, dest, tag, comm, request);
}

int on_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) noexcept {
  return PMPI_Issend(buf, count, datatype, dest, tag, comm, request);
}

int on_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) noexcept {
  return PMPI_Irsend(buf, count, datatype, dest, tag, comm, request);
}

// --- recv

int on_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
            MPI_Status *status) noexcept {
  return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int on_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request *request) noexcept {
  return PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
}

int on_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
             MPI_Status *status) noexcept {
  return PMPI_Mrecv(buf, count, datatype, message, status);
}

int on_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Request *request) noexcept {
  return PMPI_Imrecv(buf, count, datatype, message, request);
}

// --- sendrecv

int on_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                MPI_Comm comm, MPI_Status *status) noexcept {
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                       source, recvtag, comm, status);
}

int on_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                        int source, int recvtag, MPI_Comm comm, MPI_Status *status) noexcept {
  return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

// --- persistent

int on_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request) noexcept {
  return PMPI_Send_init(buf, count, datatype, dest, tag, comm, request);
}

int on_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request) noexcept {
  return PMPI_Bsend_init(buf, count, datatype, dest, tag, comm, request);
}

int on_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request) noexcept {
  return PMPI_Ssend_init(buf, count, datatype, dest, tag, comm, request);
}

int on_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request) noexcept {
  return PMPI_Rsend_init(buf, count, datatype, dest, tag, comm, request);
}

int on_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request *request) noexcept {
  return PMPI_Recv_init(buf, count, datatype, source, tag, comm, request);
}

// --- start

int on_Start(MPI_Request *request) noexcept {
  return PMPI_Start(request);
}

int on_Startall(int count, MPI_Request array_of_requests[]) noexcept {
  return PMPI_Startall(count, array_of_requests);
}

// --- probe

int on_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) noexcept {
  return PMPI_Probe(source, tag, comm, status);
}

int on_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) noexcept {
  return PMPI_Iprobe(source, tag, comm, flag, status);
}

int on_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
              MPI_Status *status) noexcept {
  return PMPI_Mprobe(source, tag, comm, message, status);
}

int on_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
               MPI_Status *status) noexcept {
  return PMPI_Improbe(source, tag, comm, flag, message, status);
}

// --- completion

int on_Wait(MPI_Request *request, MPI_Status *status) noexcept {
  return PMPI_Wait(request, status);
}

int on_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status) noexcept {
  return PMPI_Waitany(count, array_of_requests, indx, status);
}

int on_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                MPI_Status array_of_statuses[]) noexcept {
  return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int on_Waitall(int count, MPI_Request array_of_requests[],
               MPI_Status array_of_statuses[]) noexcept {
  return PMPI_Waitall(count, array_of_requests, array_of_statuses);
}

int on_Test(MPI_Request *request, int *flag, MPI_Status *status) noexcept {
  return PMPI_Test(request, flag, status);
}

int on_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
               MPI_Status *status) noexcept {
  return PMPI_Testany(count, array_of_requests, indx, flag, status);
}

int on_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                MPI_Status array_of_statuses[]) noexcept {
  return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int on_Testall(int count, MPI_Request array_of_requests[], int *flag,
               MPI_Status array_of_statuses[]) noexcept {
  return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
}

int on_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) noexcept {
  return PMPI_Request_get_status(request, flag, status);
}

// --- request

int on_Request_free(MPI_Request *request) noexcept {
  return PMPI_Request_free(request);
}

int on_Cancel(MPI_Request *request) noexcept {
  return PMPI_Cancel(request);
}

// --- status

int on_Test_cancelled(const MPI_Status *status, int *flag) noexcept {
  return PMPI_Test_cancelled(status, flag);
}

int on_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) noexcept {
  return PMPI_Get_count(status, datatype, count);
}

int on_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) noexcept {
  return PMPI_Get_elements(status, datatype, count);
}

int on_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) noexcept {
  return PMPI_Get_elements_x(status, datatype, count);
}

// --- buffer

int on_Buffer_attach(void *buffer, int size) noexcept {
  return PMPI_Buffer_attach(buffer, size);
}

int on_Buffer_detach(void *buffer_addr, int *size) noexcept {
  return PMPI_Buffer_detach(buffer_addr, size);
}

// --- env

int on_Init(int *argc, char ***argv) noexcept {
  return PMPI_Init(argc, argv);
}

int on_Init_thread(int *argc, char ***argv, int required, int *provided) noexcept {
  return PMPI_Init_thread(argc, argv, required, provided);
}

int on_Finalize() noexcept {
  return PMPI_Finalize();
}

int on_Abort(MPI_Comm comm, int errorcode) noexcept {
  return PMPI_Abort(comm, errorcode);
}

// --- query

int on_Initialized(int *flag) noexcept {
  return PMPI_Initialized(flag);
}

int on_Finalized(int *flag) noexcept {
  return PMPI_Finalized(flag);
}

int on_Comm_rank(MPI_Comm comm, int *rank) noexcept {
  return PMPI_Comm_rank(comm, rank);
}

int on_Comm_size(MPI_Comm comm, int *size) noexcept {
  return PMPI_Comm_size(comm, size);
}

double on_Wtime() noexcept {
  return PMPI_Wtime();
}

double on_Wtick() noexcept {
  return PMPI_Wtick();
}

}  // namespace c3::mpi
