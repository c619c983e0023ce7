// Collectives across a recovery line (docs/protocol.md "Collectives"). Every collective call on a
// communicator gets the next number of that communicator (numbers are alike on every member, as
// MPI orders collectives). Checkpoint-Initiated carries each process's numbers at its checkpoint,
// so once a process has them all it knows, for each communicator, the highest number some member
// had executed before its checkpoint (the bound). A call numbered up to the bound is one that
// some member will not execute again after a restart: the members that execute it after their
// checkpoint keep its result in their log (they stay in a logging mode until they have), and a
// restart takes the result from there instead of calling MPICH. Calls above the bound run
// natively after a restart, on every member alike. In Run mode a collective is MPICH's call plus
// a counter: no extra communication.
//
// The generated wrappers (protocol/mpi_functions.txt, shape=...) describe each call by the roles
// of its parameters in a coll::Call, and hand run() or start() the MPICH call itself.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "handles/handles.hpp"
#include "layer/native_blocking.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi::coll {

enum class Shape : uint8_t {
  Barrier, Bcast, Gather, Gatherv, Scatter, Scatterv, Allgather, Allgatherv, Alltoall, Alltoallv,
  Alltoallw, Reduce, Allreduce, ReduceScatter, ReduceScatterBlock, Scan, Exscan,
  NeighborAllgather, NeighborAllgatherv, NeighborAlltoall, NeighborAlltoallv, NeighborAlltoallw,
  CreateComm,  // a communicator creation numbered on its parent (MPI_Comm_split, ...)
};

struct Call {
  Call(Shape shape, MPI_Comm comm);

  Shape shape;
  MPI_Comm comm;    // the program's handle
  CommInfo *info;   // nullptr: a communicator c3 does not track (its calls are not numbered)
  const void *send_buf = nullptr;
  int send_count = 0;
  MPI_Datatype send_type = MPI_DATATYPE_NULL;
  void *recv_buf = nullptr;
  int recv_count = 0;
  MPI_Datatype recv_type = MPI_DATATYPE_NULL;
  const int *send_counts = nullptr, *send_displs = nullptr;
  const int *recv_counts = nullptr, *recv_displs = nullptr;
  const MPI_Aint *send_adispls = nullptr, *recv_adispls = nullptr;
  const MPI_Datatype *send_types = nullptr, *recv_types = nullptr;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;

  MPI_Comm real_comm() const { return real_comm_; }
  const MPI_Datatype *real_send_types();
  const MPI_Datatype *real_recv_types();
  // Where the call's result lands in this process (what the log keeps).
  std::vector<Region> outputs() const;
  void outputs(std::vector<Region> &out) const;  // into `out`, reusing its capacity

 private:
  MPI_Comm real_comm_;
  std::vector<MPI_Datatype> real_send_types_, real_recv_types_;
};

// Run mode (nothing is logged, nothing replayed): a blocking collective is MPICH's call plus its
// communicator's counter. Numbers the call and sets `real` to MPICH's communicator; false in the
// other modes and for any handle but MPI_COMM_WORLD or a live communicator of c3's table, whose
// wrapper then builds a Call (which numbers it, or reports the bad handle).
[[gnu::always_inline]] inline bool numbered_in_run_mode(MPI_Comm comm, MPI_Comm &real) {
  if (state().mode != Mode::Run) return false;
  if (comm == MPI_COMM_WORLD) {
    ++handles().world.seq;
    real = comm;
    return true;
  }
  auto *slot = handles().comms.find(comm);
  if (!slot || slot->refs == 0) return false;
  ++slot->info.seq;
  real = slot->real;
  return true;
}

// The number the call gets on its communicator (0 for an untracked one).
uint64_t number(Call &call);
// Restore: the logged result of call `seq` on the communicator, or nullptr when it runs natively.
const LoggedCollective *logged(const Call &call, uint64_t seq);
// Writes a logged result into the call's output regions; returns its return code.
int replay(const std::vector<Region> &outputs, const LoggedCollective &logged);
// NonDet-Log / RecvOnly-Log: keeps the call's result.
bool logging();
void log_result(uint64_t gid, uint64_t seq, const std::vector<Region> &outputs, int rc);

template <class Native>
int run(Call &call, Native &&native) {
  const uint64_t seq = number(call);
  if (const LoggedCollective *result = logged(call, seq)) return replay(call.outputs(), *result);
  int rc;
  {
    NativeBlocking blocking;
    rc = native();
  }
  if (logging() && call.info) log_result(call.info->gid, seq, call.outputs(), rc);
  return rc;
}

void consume(const LoggedCollective &logged);  // a replayed result is used up
std::string pack(const std::vector<Region> &outputs);

// A communicator creation's result: what this process got, logged; and in Restore, the
// communicator the restart built for it (rt().precreated).
void log_creation(uint64_t gid, uint64_t seq, uint64_t key, int rc, MPI_Comm made);
MPI_Comm replay_creation(const LoggedCollective &logged, int &rc);

// A nonblocking collective: its request is a c3 request (Request::Kind::Collective) whose result
// is logged when it completes while this process logs.
MPI_Request new_collective_request(const Call &call, uint64_t seq, Request **out);
void finish_replayed_request(Request &r);
// Sets *request; `out` is left null when the log supplied the result.
int start_request(Call &call, uint64_t seq, MPI_Request *request, Request **out);
void free_collective_request(MPI_Request *request);
// Its MPICH request completed with `st`.
void complete_request(Request &r, const MPI_Status &st);
// Restart: a request pending at the checkpoint gets its logged result (false: none logged).
bool restore_request(Request &r);
template <class Native>
int start(Call &call, MPI_Request *request, Native &&native) {
  const uint64_t seq = number(call);
  Request *r = nullptr;
  const int rc = start_request(call, seq, request, &r);
  if (!r) return rc;  // served from the log
  const int started = native(&r->real);
  if (started != MPI_SUCCESS) free_collective_request(request);
  return started;
}

}  // namespace c3::mpi::coll
