#include "collectives/collective_call.hpp"

#include <algorithm>
#include <cstring>

#include "handles/communicators.hpp"
#include "handles/ops.hpp"
#include "layer/layer.hpp"
#include "messages/requests.hpp"

namespace c3::mpi::coll {
namespace {

bool is_inter(const CommInfo *info) { return info && info->inter; }

// Processes a block-per-process call exchanges with: the group, the remote group of an
// intercommunicator, or the neighbours of a topology.
int peers(const Call &call) {
  if (!call.info) {
    int n = 0, inter = 0;
    PMPI_Comm_test_inter(call.real_comm(), &inter);
    if (inter)
      PMPI_Comm_remote_size(call.real_comm(), &n);
    else
      PMPI_Comm_size(call.real_comm(), &n);
    return n;
  }
  return call.info->inter ? int(call.info->remote_world.size()) : call.info->size();
}

void neighbour_counts(MPI_Comm real, int &in, int &out) {
  int kind = MPI_UNDEFINED;
  in = out = 0;
  PMPI_Topo_test(real, &kind);
  if (kind == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(real, &dims);
    in = out = 2 * dims;
  } else if (kind == MPI_GRAPH) {
    int rank = 0;
    PMPI_Comm_rank(real, &rank);
    PMPI_Graph_neighbors_count(real, rank, &in);
    out = in;
  } else if (kind == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(real, &in, &out, &weighted);
  }
}

int my_rank(const Call &call) {
  if (call.info) return call.info->rank;
  int rank = 0;
  PMPI_Comm_rank(call.real_comm(), &rank);
  return rank;
}

MPI_Aint extent_of(MPI_Datatype real) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(real, &lb, &extent);
  return extent;
}

Region region(const void *buf, MPI_Aint offset, int count, MPI_Datatype app) {
  Region r;
  r.buf = uint64_t(reinterpret_cast<uintptr_t>(buf)) + uint64_t(offset);
  r.count = count;
  r.type = app;
  r.real = real_type(app);
  return r;
}

// Whether this process receives in a rooted call: an intracommunicator's non-root (scatter,
// bcast) or root (gather, reduce); in an intercommunicator's, the side that is not the root's
// group receives what the root sends, and the root (MPI_ROOT) what the other side sends.
bool receives_at_root(const Call &call) {
  return is_inter(call.info) ? call.root == MPI_ROOT : my_rank(call) == call.root;
}
bool receives_from_root(const Call &call) {
  if (is_inter(call.info)) return call.root != MPI_ROOT && call.root != MPI_PROC_NULL;
  return my_rank(call) != call.root;
}

void blocks(std::vector<Region> &out, const Call &call, int n, const int *counts,
            const int *displs, MPI_Datatype type) {
  const MPI_Aint extent = extent_of(real_type(type));
  for (int i = 0; i < n; ++i)
    out.push_back(region(call.recv_buf, MPI_Aint(displs[i]) * extent, counts[i], type));
}

}  // namespace

Call::Call(Shape s, MPI_Comm c) : shape(s), comm(c), info(comm_info(c)), real_comm_(c3::mpi::real_comm(c)) {}

const MPI_Datatype *Call::real_send_types() {
  if (!send_types || send_buf == MPI_IN_PLACE) return send_types;
  int in = 0, out = 0;
  const int n = shape == Shape::NeighborAlltoallw ? (neighbour_counts(real_comm_, in, out), out)
                                                  : peers(*this);
  real_send_types_.assign(send_types, send_types + n);
  for (MPI_Datatype &t : real_send_types_) t = real_type(t);
  return real_send_types_.data();
}

const MPI_Datatype *Call::real_recv_types() {
  if (!recv_types) return recv_types;
  int in = 0, out = 0;
  const int n = shape == Shape::NeighborAlltoallw ? (neighbour_counts(real_comm_, in, out), in)
                                                  : peers(*this);
  real_recv_types_.assign(recv_types, recv_types + n);
  for (MPI_Datatype &t : real_recv_types_) t = real_type(t);
  return real_recv_types_.data();
}

std::vector<Region> Call::outputs() const {
  std::vector<Region> out;
  outputs(out);
  return out;
}

void Call::outputs(std::vector<Region> &out) const {
  out.clear();
  const int n = shape == Shape::Barrier || shape == Shape::CreateComm ? 0 : peers(*this);
  int in_degree = 0, out_degree = 0;
  switch (shape) {
    case Shape::Barrier:
    case Shape::CreateComm:
      break;
    case Shape::Bcast:
      if (receives_from_root(*this)) out.push_back(region(recv_buf, 0, recv_count, recv_type));
      break;
    case Shape::Scatter:
    case Shape::Scatterv:
      // An intracommunicator's root gets its own block too (unless MPI_IN_PLACE).
      if ((receives_from_root(*this) || (!is_inter(info) && my_rank(*this) == root)) &&
          recv_buf != MPI_IN_PLACE)
        out.push_back(region(recv_buf, 0, recv_count, recv_type));
      break;
    case Shape::Gather:
      if (receives_at_root(*this)) out.push_back(region(recv_buf, 0, recv_count * n, recv_type));
      break;
    case Shape::Gatherv:
      if (receives_at_root(*this)) blocks(out, *this, n, recv_counts, recv_displs, recv_type);
      break;
    case Shape::Reduce:
      if (receives_at_root(*this)) out.push_back(region(recv_buf, 0, recv_count, recv_type));
      break;
    case Shape::Allgather:
    case Shape::Alltoall:
      out.push_back(region(recv_buf, 0, recv_count * n, recv_type));
      break;
    case Shape::Allgatherv:
    case Shape::Alltoallv:
      blocks(out, *this, n, recv_counts, recv_displs, recv_type);
      break;
    case Shape::Alltoallw:
      for (int i = 0; i < n; ++i)
        out.push_back(region(recv_buf, recv_displs[i], recv_counts[i], recv_types[i]));
      break;
    case Shape::Allreduce:
    case Shape::ReduceScatterBlock:
    case Shape::Scan:
    case Shape::Exscan:
      out.push_back(region(recv_buf, 0, recv_count, recv_type));
      break;
    case Shape::ReduceScatter:
      out.push_back(region(recv_buf, 0, recv_counts[my_rank(*this)], recv_type));
      break;
    case Shape::NeighborAllgather:
    case Shape::NeighborAlltoall:
      neighbour_counts(real_comm_, in_degree, out_degree);
      out.push_back(region(recv_buf, 0, recv_count * in_degree, recv_type));
      break;
    case Shape::NeighborAllgatherv:
    case Shape::NeighborAlltoallv:
      neighbour_counts(real_comm_, in_degree, out_degree);
      blocks(out, *this, in_degree, recv_counts, recv_displs, recv_type);
      break;
    case Shape::NeighborAlltoallw:
      neighbour_counts(real_comm_, in_degree, out_degree);
      for (int i = 0; i < in_degree; ++i)
        out.push_back(region(recv_buf, recv_adispls[i], recv_counts[i], recv_types[i]));
      break;
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const Region &r) { return r.count <= 0; }),
            out.end());
}

uint64_t number(Call &call) { return call.info ? ++call.info->seq : 0; }

bool logging() {
  const Mode mode = state().mode;
  return mode == Mode::NonDetLog || mode == Mode::RecvOnlyLog;
}

const LoggedCollective *logged(const Call &call, uint64_t seq) {
  if (state().mode != Mode::Restore || !call.info) return nullptr;
  for (const LoggedCollective &l : state().replay.collectives)
    if (l.key == 0 && l.gid == call.info->gid && l.seq == seq) return &l;
  return nullptr;
}

std::string pack(const std::vector<Region> &outputs) {
  std::string data;
  for (const Region &r : outputs) {
    int size = 0;
    PMPI_Pack_size(r.count, r.real, MPI_COMM_SELF, &size);
    const size_t at = data.size();
    data.resize(at + size_t(size));
    int position = 0;
    PMPI_Pack(reinterpret_cast<const void *>(r.buf), r.count, r.real, &data[at], size, &position,
              MPI_COMM_SELF);
    data.resize(at + size_t(position));
  }
  return data;
}

void unpack(const std::vector<Region> &outputs, const std::string &data) {
  int position = 0;
  for (const Region &r : outputs) {
    const int rc = PMPI_Unpack(data.data(), int(data.size()), &position,
                               reinterpret_cast<void *>(r.buf), r.count, real_type(r.type),
                               MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) fatal("restart diverged: a logged collective result does not fit its call");
  }
}

int replay(const std::vector<Region> &outputs, const LoggedCollective &logged) {
  unpack(outputs, logged.data);
  const int rc = logged.rc;
  consume(logged);
  return rc;
}

void log_result(uint64_t gid, uint64_t seq, const std::vector<Region> &outputs, int rc) {
  LoggedCollective l;
  l.gid = gid;
  l.seq = seq;
  l.rc = rc;
  l.data = pack(outputs);
  state().log.collectives.push_back(std::move(l));
}

void consume(const LoggedCollective &logged) {
  auto &all = state().replay.collectives;
  for (auto it = all.begin(); it != all.end(); ++it)
    if (&*it == &logged) {
      all.erase(it);
      return;
    }
}

MPI_Request new_collective_request(const Call &call, uint64_t seq, Request **out) {
  Request *r = nullptr;
  const MPI_Request h = new_request(Request::Kind::Collective, &r);
  r->comm = call.comm;
  r->rcomm = call.real_comm();
  r->active = true;
  r->coll = new_collective_record();
  r->coll->gid = call.info ? call.info->gid : 0;
  r->coll->seq = seq;
  r->coll->started_logging = logging();
  *out = r;
  return h;
}

void finish_replayed_request(Request &r) {
  MPI_Status st{};
  make_status(st, 0, 0, 0);  // what MPICH 4.0.2 gives for a nonblocking collective
  std::memcpy(r.status.words, &st, sizeof st);
  r.done = true;
}

int start_request(Call &call, uint64_t seq, MPI_Request *request, Request **out) {
  *out = nullptr;
  Request *r = nullptr;
  *request = new_collective_request(call, seq, &r);
  call.outputs(r->coll->outputs);
  for (const Region &region : r->coll->outputs) hold_datatype(region.type);
  r->coll->op_slot = op_trampoline_slot(call.op);
  if (const LoggedCollective *result = logged(call, seq)) {
    finish_replayed_request(*r);
    return replay(r->coll->outputs, *result);
  }
  *out = r;
  return MPI_SUCCESS;
}

void log_creation(uint64_t gid, uint64_t seq, uint64_t key, int rc, MPI_Comm made) {
  LoggedCollective l;
  l.gid = gid;
  l.seq = seq;
  l.key = key;
  l.rc = rc;
  l.made_comm = true;
  if (const CommInfo *info = comm_info(made)) {
    l.got_comm = true;
    l.comm = *info;
  }
  state().log.collectives.push_back(std::move(l));
}

MPI_Comm replay_creation(const LoggedCollective &l, int &rc) {
  rc = l.rc;
  MPI_Comm out = MPI_COMM_NULL;
  if (l.got_comm) {
    auto it = rt().precreated.find(l.comm.gid);
    if (it == rt().precreated.end()) fatal("restart diverged: a logged communicator was not built");
    CommInfo info = l.comm;
    info.seq = 0;
    info.bulk = it->second.second;
    out = adopt_new_comm(it->second.first, std::move(info));
    rt().precreated.erase(it);
  }
  consume(l);
  return out;
}

void complete_request(Request &r, const MPI_Status &st) {
  CollectiveRecord &c = *r.coll;
  if (c.new_comm) {  // MPI_Comm_idup: the communicator is complete now
    auto *slot = handles().comms.find(c.new_comm);
    CommInfo info = describe_comm(slot->real);
    info.gid = numbered_gid(c.gid, c.seq, info);
    slot->info = std::move(info);
    if (logging()) log_creation(c.gid, c.seq, 0, MPI_SUCCESS, c.new_comm);
  } else if (logging()) {
    for (Region &region : c.outputs) region.real = real_type(region.type);
    log_result(c.gid, c.seq, c.outputs, MPI_SUCCESS);
  }
  std::memcpy(r.status.words, &st, sizeof st);
  r.done = true;
}

bool restore_request(Request &r) {
  const CollectiveRecord &c = *r.coll;
  for (const LoggedCollective &l : state().replay.collectives)
    if (l.key == 0 && l.gid == c.gid && l.seq == c.seq) {
      if (l.made_comm) {
        auto *slot = handles().comms.find(c.new_comm);
        auto it = rt().precreated.find(l.comm.gid);
        if (!slot || it == rt().precreated.end()) return false;
        slot->info = l.comm;
        handles().comms.set_real(c.new_comm, it->second.first);
        slot->info.bulk = it->second.second;
        rt().precreated.erase(it);
        consume(l);
      } else {
        replay(c.outputs, l);
      }
      finish_replayed_request(r);
      return true;
    }
  return false;
}

void free_collective_request(MPI_Request *request) { free_request(*request); }

}  // namespace c3::mpi::coll
