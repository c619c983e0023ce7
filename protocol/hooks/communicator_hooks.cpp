// Creating and freeing communicators. A creation is a collective: it is numbered on its parent
// communicator like any collective (or, where only part of the parent takes part, known by the
// new communicator's gid), executed natively, and its result (the new communicator's
// description) is logged like a collective's output, so a process that repeats it after a
// restart while others do not gets the communicator the restart built (collectives/).
#include <cstring>
#include <string>

#include "collectives/collective_call.hpp"
#include "handles/communicators.hpp"
#include "handles/groups.hpp"
#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "layer/native_blocking.hpp"
#include "messages/requests.hpp"
#include "messages/split_transfer.hpp"
#include "mpi_hooks.hpp"

namespace c3::mpi {
namespace {

constexpr uint64_t kCreateGroupKey = 0xc3c0, kIntercommKey = 0xc3c1;

// A creation numbered on its parent: `native` makes MPICH's communicator.
template <class Native>
int create_numbered(CommArg parent, MPI_Comm *newcomm, Native &&native) {
  coll::Call call(coll::Shape::CreateComm, parent.app);
  const uint64_t seq = coll::number(call);
  if (const LoggedCollective *l = coll::logged(call, seq)) {
    int rc = MPI_SUCCESS;
    *newcomm = coll::replay_creation(*l, rc);
    return rc;
  }
  MPI_Comm real = MPI_COMM_NULL;
  int rc;
  {
    NativeBlocking blocking;
    rc = native(&real);
  }
  // A failed creation (an attribute copy callback failed, say) gives MPI_COMM_NULL, as MPICH's.
  MPI_Comm made = MPI_COMM_NULL;
  if (rc == MPI_SUCCESS && real != MPI_COMM_NULL) {
    CommInfo info = describe_comm(real);
    info.gid = numbered_gid(call.info ? call.info->gid : 0, seq, info);
    info.bulk = split::make_bulk(real);
    made = adopt_new_comm(real, std::move(info));
  }
  if (coll::logging() && call.info) coll::log_creation(call.info->gid, seq, 0, rc, made);
  *newcomm = made;
  return rc;
}

// A creation only part of the parent takes part in: known by the new communicator's gid, which
// the members compute alike beforehand.
const LoggedCollective *logged_key(uint64_t key) {
  if (state().mode != Mode::Restore) return nullptr;
  for (const LoggedCollective &l : state().replay.collectives)
    if (l.key == key) return &l;
  return nullptr;
}

}  // namespace

int on_Comm_dup(CommArg comm, MPI_Comm *newcomm) noexcept {
  return create_numbered(comm, newcomm, [&](MPI_Comm *out) { return PMPI_Comm_dup(comm.real, out); });
}

int on_Comm_dup_with_info(CommArg comm, MPI_Info info, MPI_Comm *newcomm) noexcept {
  return create_numbered(comm, newcomm, [&](MPI_Comm *out) {
    return PMPI_Comm_dup_with_info(comm.real, real_info(info), out);
  });
}

int on_Comm_split(CommArg comm, int color, int key, MPI_Comm *newcomm) noexcept {
  return create_numbered(comm, newcomm,
                         [&](MPI_Comm *out) { return PMPI_Comm_split(comm.real, color, key, out); });
}

int on_Comm_split_type(CommArg comm, int split_type, int key, MPI_Info info,
                       MPI_Comm *newcomm) noexcept {
  return create_numbered(comm, newcomm, [&](MPI_Comm *out) {
    return PMPI_Comm_split_type(comm.real, split_type, key, real_info(info), out);
  });
}

int on_Comm_create(CommArg comm, MPI_Group group, MPI_Comm *newcomm) noexcept {
  return create_numbered(comm, newcomm, [&](MPI_Comm *out) {
    return PMPI_Comm_create(comm.real, real_group(group), out);
  });
}

int on_Cart_create(CommArg comm_old, int ndims, const int dims[], const int periods[],
                   int reorder, MPI_Comm *comm_cart) noexcept {
  return create_numbered(comm_old, comm_cart, [&](MPI_Comm *out) {
    return PMPI_Cart_create(comm_old.real, ndims, dims, periods, reorder, out);
  });
}

int on_Cart_sub(CommArg comm, const int remain_dims[], MPI_Comm *newcomm) noexcept {
  return create_numbered(comm, newcomm,
                         [&](MPI_Comm *out) { return PMPI_Cart_sub(comm.real, remain_dims, out); });
}

int on_Graph_create(CommArg comm_old, int nnodes, const int indx[], const int edges[],
                    int reorder, MPI_Comm *comm_graph) noexcept {
  return create_numbered(comm_old, comm_graph, [&](MPI_Comm *out) {
    return PMPI_Graph_create(comm_old.real, nnodes, indx, edges, reorder, out);
  });
}

int on_Dist_graph_create(CommArg comm_old, int n, const int sources[], const int degrees[],
                         const int destinations[], const int weights[], MPI_Info info,
                         int reorder, MPI_Comm *comm_dist_graph) noexcept {
  return create_numbered(comm_old, comm_dist_graph, [&](MPI_Comm *out) {
    return PMPI_Dist_graph_create(comm_old.real, n, sources, degrees, destinations, weights,
                                  real_info(info), reorder, out);
  });
}

int on_Dist_graph_create_adjacent(CommArg comm_old, int indegree, const int sources[],
                                  const int sourceweights[], int outdegree,
                                  const int destinations[], const int destweights[],
                                  MPI_Info info, int reorder,
                                  MPI_Comm *comm_dist_graph) noexcept {
  return create_numbered(comm_old, comm_dist_graph, [&](MPI_Comm *out) {
    return PMPI_Dist_graph_create_adjacent(comm_old.real, indegree, sources, sourceweights,
                                           outdegree, destinations, destweights, real_info(info),
                                           reorder, out);
  });
}

int on_Intercomm_merge(CommArg intercomm, int high, MPI_Comm *newintracomm) noexcept {
  return create_numbered(intercomm, newintracomm, [&](MPI_Comm *out) {
    return PMPI_Intercomm_merge(intercomm.real, high, out);
  });
}

int on_Comm_create_group(CommArg comm, MPI_Group group, int tag, MPI_Comm *newcomm) noexcept {
  const std::vector<int> members = world_ranks(real_group(group));
  const uint64_t key = keyed_gid(kCreateGroupKey, comm_gid(comm.app), members, {}, tag);
  if (const LoggedCollective *l = logged_key(key)) {
    int rc = MPI_SUCCESS;
    *newcomm = coll::replay_creation(*l, rc);
    return rc;
  }
  MPI_Comm real = MPI_COMM_NULL;
  int rc;
  {
    NativeBlocking blocking;
    rc = PMPI_Comm_create_group(comm.real, real_group(group), tag, &real);
  }
  if (rc != MPI_SUCCESS) return rc;
  CommInfo info = describe_comm(real);
  info.gid = key;
  info.keyed = true;
  info.bulk = split::make_bulk(real);
  *newcomm = adopt_new_comm(real, std::move(info));
  if (coll::logging()) coll::log_creation(comm_gid(comm.app), 0, key, rc, *newcomm);
  return rc;
}

// Its key needs both groups, which only the call tells (non-leaders do not know the remote
// leader): a restart finds the logged result by the local communicator and how many
// intercommunicators were created on it before.
int on_Intercomm_create(CommArg local_comm, int local_leader, CommArg peer_comm,
                        int remote_leader, int tag, MPI_Comm *newintercomm) noexcept {
  CommInfo *local = comm_info(local_comm.app);
  const uint64_t ordinal = local ? ++handles().keyed_creations[local->gid ^ kIntercommKey] : 0;
  if (state().mode == Mode::Restore && local)
    for (const LoggedCollective &l : state().replay.collectives)
      if (l.key && l.gid == local->gid && l.seq == ordinal) {
        int rc = MPI_SUCCESS;
        *newintercomm = coll::replay_creation(l, rc);
        return rc;
      }
  MPI_Comm real = MPI_COMM_NULL;
  int rc;
  {
    NativeBlocking blocking;
    rc = PMPI_Intercomm_create(local_comm.real, local_leader, peer_comm.real, remote_leader, tag,
                               &real);
  }
  if (rc != MPI_SUCCESS) return rc;
  CommInfo info = describe_comm(real);
  // Alike on both sides: the groups in a fixed order, the tag.
  const bool low = info.world.front() < info.remote_world.front();
  info.gid = keyed_gid(kIntercommKey, 0, low ? info.world : info.remote_world,
                       low ? info.remote_world : info.world, tag);
  info.keyed = true;
  info.bulk = split::make_bulk(real);
  const uint64_t gid = info.gid;
  *newintercomm = adopt_new_comm(real, std::move(info));
  if (coll::logging() && local) coll::log_creation(local->gid, ordinal, gid, rc, *newintercomm);
  return rc;
}

namespace {

int idup(CommArg comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request) {
  coll::Call call(coll::Shape::CreateComm, comm.app);
  const uint64_t seq = coll::number(call);
  Request *r = nullptr;
  *request = coll::new_collective_request(call, seq, &r);
  if (const LoggedCollective *l = coll::logged(call, seq)) {
    int rc = MPI_SUCCESS;
    *newcomm = coll::replay_creation(*l, rc);
    coll::finish_replayed_request(*r);
    return rc;
  }
  MPI_Comm real = MPI_COMM_NULL;
  const int rc = info == MPI_INFO_NULL ? PMPI_Comm_idup(comm.real, &real, &r->real)
                                       : PMPI_Comm_idup_with_info(comm.real, real_info(info), &real,
                                                                  &r->real);
  if (rc != MPI_SUCCESS) {
    free_request(*request);
    return rc;
  }
  // MPICH names the new communicator at once; it is described when the request completes.
  *newcomm = adopt_new_comm(real, CommInfo{});
  r->coll->new_comm = *newcomm;
  return rc;
}

}  // namespace

int on_Comm_idup(CommArg comm, MPI_Comm *newcomm, MPI_Request *request) noexcept {
  return idup(comm, MPI_INFO_NULL, newcomm, request);
}

int on_Comm_idup_with_info(CommArg comm, MPI_Info info, MPI_Comm *newcomm,
                           MPI_Request *request) noexcept {
  return idup(comm, info, newcomm, request);
}

int on_Comm_free(MPI_Comm *comm) noexcept {
  auto &comms = handles().comms;
  if (!comms.find(*comm)) return PMPI_Comm_free(comm);  // predefined or untracked
  const MPI_Comm app = *comm;
  // Freed in MPICH first: delete callbacks of its attributes still see the program's handle,
  // and if one fails, the communicator stays, for MPICH and for c3.
  MPI_Comm real = comms.at(app).real;
  const int rc = PMPI_Comm_free(&real);
  if (rc != MPI_SUCCESS) return rc;
  // MPICH keeps the communicator for requests still pending on it (they hold its handle); c3
  // keeps the entry as a zombie until they complete.
  comms.drop(app);
  comms.find(app)->released = true;  // its handle still leads here: delete callbacks run later
  retire_comm(app);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

}  // namespace c3::mpi
