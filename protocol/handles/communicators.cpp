// Communicators. c3 records each one's members (as MPI_COMM_WORLD ranks), topology and identity
// (gid), so a restart can build it again with exactly the processes that hold it, without
// replaying how it was made: MPI_Comm_create_group over MPI_COMM_WORLD, in the order of the gids,
// which every rank sorts alike (so no two ranks wait for each other in different creations).
#include "handles/communicators.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "handles/attributes.hpp"
#include "handles/groups.hpp"
#include "handles/handles.hpp"
#include "layer/layer.hpp"
#include "messages/split_transfer.hpp"

namespace c3::mpi {
namespace {

auto &comms() { return handles().comms; }

uint64_t mix(uint64_t h, uint64_t v) {
  // splitmix64 of (h xor v): every input bit reaches every output bit.
  uint64_t z = (h ^ v) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t mix_ranks(uint64_t h, const std::vector<int> &ranks) {
  h = mix(h, ranks.size());
  for (int r : ranks) h = mix(h, uint64_t(uint32_t(r)));
  return h;
}

// A gid is never 0 (untracked), 1 or 2 (the predefined communicators).
uint64_t finish(uint64_t h) { return h > kSelfGid ? h : h + 3; }

Topology describe_topology(MPI_Comm real) {
  Topology t;
  PMPI_Topo_test(real, &t.kind);
  if (t.kind == MPI_CART) {
    int n = 0;
    PMPI_Cartdim_get(real, &n);
    t.dims.resize(size_t(n));
    t.periods.resize(size_t(n));
    std::vector<int> coords(static_cast<size_t>(n));
    PMPI_Cart_get(real, n, t.dims.data(), t.periods.data(), coords.data());
  } else if (t.kind == MPI_GRAPH) {
    int nodes = 0, edges = 0;
    PMPI_Graphdims_get(real, &nodes, &edges);
    t.index.resize(size_t(nodes));
    t.edges.resize(size_t(edges));
    PMPI_Graph_get(real, nodes, edges, t.index.data(), t.edges.data());
  } else if (t.kind == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(real, &in, &out, &weighted);
    t.weighted = weighted != 0;
    t.sources.resize(size_t(in));
    t.destinations.resize(size_t(out));
    t.source_weights.resize(size_t(weighted ? in : 0));
    t.destination_weights.resize(size_t(weighted ? out : 0));
    std::vector<int> dummy(1);  // a weights array of no elements must still be one
    PMPI_Dist_graph_neighbors(
        real, in, t.sources.data(),
        weighted ? (in ? t.source_weights.data() : dummy.data()) : MPI_UNWEIGHTED, out,
        t.destinations.data(),
        weighted ? (out ? t.destination_weights.data() : dummy.data()) : MPI_UNWEIGHTED);
  }
  return t;
}

const int *weights(const std::vector<int> &w, bool weighted) {
  static int empty_weights[1];
  if (!weighted) return MPI_UNWEIGHTED;
  return w.empty() ? empty_weights : w.data();
}

// The tag of a re-creation (MPI_Comm_create_group, MPI_Intercomm_create): any value below
// MPI_TAG_UB; creations happen one after the other in gid order.
int creation_tag(uint64_t gid) { return int(gid % 0x7ffffff); }

MPI_Comm intracomm_of(const std::vector<int> &world, uint64_t gid) {
  MPI_Group group = group_of_world_ranks(world);
  MPI_Comm comm = MPI_COMM_NULL;
  const int rc = PMPI_Comm_create_group(MPI_COMM_WORLD, group, creation_tag(gid), &comm);
  PMPI_Group_free(&group);
  if (rc != MPI_SUCCESS) fatal("restart: could not build a communicator again");
  return comm;
}

}  // namespace

CommInfo *comm_info(MPI_Comm app) {
  if (app == MPI_COMM_WORLD) return &handles().world;
  if (app == MPI_COMM_SELF) return &handles().self;
  auto *slot = comms().find(app);
  return slot ? &slot->info : nullptr;
}

uint64_t comm_gid(MPI_Comm app) {
  const CommInfo *info = comm_info(app);
  return info ? info->gid : 0;
}

void setup_handles() {
  CommInfo &world = handles().world;
  world.gid = kWorldGid;
  world.rank = rt().rank;
  world.world.resize(size_t(rt().size));
  for (int i = 0; i < rt().size; ++i) world.world[size_t(i)] = i;
  CommInfo &self = handles().self;
  self.gid = kSelfGid;
  self.rank = 0;
  self.world = {rt().rank};
}

CommInfo describe_comm(MPI_Comm real) {
  CommInfo c;
  int inter = 0;
  PMPI_Comm_test_inter(real, &inter);
  c.inter = inter != 0;
  MPI_Group group;
  PMPI_Comm_group(real, &group);
  c.world = world_ranks(group);
  PMPI_Group_free(&group);
  if (c.inter) {
    PMPI_Comm_remote_group(real, &group);
    c.remote_world = world_ranks(group);
    PMPI_Group_free(&group);
  }
  PMPI_Comm_rank(real, &c.rank);
  if (!c.inter) c.topology = describe_topology(real);
  c.created_epoch = state().epoch;
  return c;
}

uint64_t numbered_gid(uint64_t parent, uint64_t seq, const CommInfo &c) {
  return finish(mix_ranks(mix_ranks(mix(mix(parent, seq), c.inter), c.world), c.remote_world));
}

uint64_t keyed_gid(uint64_t what, uint64_t parent, const std::vector<int> &a,
                   const std::vector<int> &b, int tag) {
  uint64_t key = mix_ranks(mix_ranks(mix(mix(what, parent), uint64_t(uint32_t(tag))), a), b);
  const uint64_t occurrence = ++handles().keyed_creations[key];
  return finish(mix(key, occurrence));
}

MPI_Comm adopt_new_comm(MPI_Comm real, CommInfo info) {
  if (real == MPI_COMM_NULL) return MPI_COMM_NULL;
  return comms().add(real, std::move(info));
}

bool comm_in_use(MPI_Comm app) {
  for (const Request &r : state().requests)
    if (r.kind != Request::Kind::Free && r.active && r.comm == app) return true;
  return false;
}

void retire_comm(MPI_Comm app) {
  auto *slot = comms().find(app);
  if (!slot || slot->refs > 0 || comm_in_use(app)) return;
  if (slot->info.bulk != MPI_COMM_NULL) PMPI_Comm_free(&slot->info.bulk);
  // A zombie rebuilt at a restart (for a pending request) owns its MPICH communicator.
  if (!slot->released && slot->real) PMPI_Comm_free(&slot->real);
  slot->info.bulk = MPI_COMM_NULL;
  handles().ghosts.push_back(Ghost{slot->info});
  comms().erase(app);  // its MPICH handle leads nowhere any more
}

void retire_unused_comms() {
  std::vector<int> zombies;
  comms().for_each([&](int h, auto &slot) {
    if (slot.zombie()) zombies.push_back(h);
  });
  for (int h : zombies) retire_comm(h);
}

void for_each_held_comm(const std::function<void(CommInfo &, bool ghost)> &f) {
  f(handles().world, false);
  f(handles().self, false);
  comms().for_each([&](int, auto &slot) { f(slot.info, false); });
  for (Ghost &g : handles().ghosts) f(g.comm, true);
}

void capture_comm_properties() {
  auto capture = [](CommInfo &c, MPI_Comm real) {
    char name[MPI_MAX_OBJECT_NAME + 1] = {};
    int length = 0;
    PMPI_Comm_get_name(real, name, &length);
    c.name.assign(name, size_t(length));
    MPI_Errhandler errhandler = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(real, &errhandler);
    c.errhandler = handles().errhandlers.app_of(errhandler);  // a c3 handle, or a predefined one
    if ((uint32_t(errhandler) >> 30) != 1) PMPI_Errhandler_free(&errhandler);  // the new reference
    capture_attributes(c, real);
  };
  capture(handles().world, MPI_COMM_WORLD);
  capture(handles().self, MPI_COMM_SELF);
  comms().for_each([&](int, auto &slot) {
    if (slot.refs > 0) capture(slot.info, slot.real);
  });
}

MPI_Comm build_comm(const CommInfo &c) {
  const int tag = creation_tag(c.gid);
  if (c.inter) {
    MPI_Comm local = intracomm_of(c.world, c.gid);
    MPI_Comm out = MPI_COMM_NULL;
    PMPI_Intercomm_create(local, 0, MPI_COMM_WORLD, c.remote_world.at(0), tag, &out);
    PMPI_Comm_free(&local);
    return out;
  }
  MPI_Comm base = intracomm_of(c.world, c.gid);
  const Topology &t = c.topology;
  MPI_Comm out = base;
  if (t.kind == MPI_CART) {
    PMPI_Cart_create(base, int(t.dims.size()), t.dims.data(), t.periods.data(), 0, &out);
  } else if (t.kind == MPI_GRAPH) {
    PMPI_Graph_create(base, int(t.index.size()), t.index.data(), t.edges.data(), 0, &out);
  } else if (t.kind == MPI_DIST_GRAPH) {
    PMPI_Dist_graph_create_adjacent(base, int(t.sources.size()), t.sources.data(),
                                    weights(t.source_weights, t.weighted),
                                    int(t.destinations.size()), t.destinations.data(),
                                    weights(t.destination_weights, t.weighted), MPI_INFO_NULL, 0,
                                    &out);
  }
  if (out != base) PMPI_Comm_free(&base);
  return out;
}

void restore_comm_properties(const CommInfo &c, MPI_Comm real) {
  if (!c.name.empty()) PMPI_Comm_set_name(real, c.name.c_str());
  if (auto *slot = handles().errhandlers.find(c.errhandler))
    PMPI_Comm_set_errhandler(real, slot->real);
  else if ((uint32_t(c.errhandler) >> 30) == 1)  // predefined
    PMPI_Comm_set_errhandler(real, c.errhandler);
  restore_attributes(c, real);
}

std::map<uint64_t, std::pair<MPI_Comm, MPI_Comm>> recreate_comms(
    const std::vector<const CommInfo *> &from_log) {
  // Everything this rank must take part in: what it holds, its ghosts, and what its log says it
  // created after the checkpoint (so do the members that hold those).
  std::vector<std::pair<uint64_t, int>> order;  // gid -> 0 table, 1 ghost, 2 log (index)
  std::vector<int> table_handles;
  comms().for_each([&](int h, auto &slot) {
    if (slot.info.gid == 0) return;  // an MPI_Comm_idup pending at the checkpoint: from the log
    order.emplace_back(slot.info.gid, int(table_handles.size()));
    table_handles.push_back(h);
  });
  const int ghosts_from = int(table_handles.size());
  for (size_t i = 0; i < handles().ghosts.size(); ++i)
    order.emplace_back(handles().ghosts[i].comm.gid, ghosts_from + int(i));
  const int log_from = ghosts_from + int(handles().ghosts.size());
  for (size_t i = 0; i < from_log.size(); ++i) order.emplace_back(from_log[i]->gid, log_from + int(i));
  std::sort(order.begin(), order.end());
  // Each with its bulk duplicate, made right after it (collective over the same members).
  std::map<uint64_t, std::pair<MPI_Comm, MPI_Comm>> made;
  for (const auto &[gid, which] : order) {
    if (made.count(gid)) continue;  // a log entry for one the table holds already
    if (which < ghosts_from) {
      const int h = table_handles[size_t(which)];
      MPI_Comm real = build_comm(comms().find(h)->info);
      comms().set_real(h, real);
      comms().find(h)->info.bulk = split::make_bulk(real);
      made[gid] = {real, comms().find(h)->info.bulk};
    } else if (which < log_from) {
      MPI_Comm real = build_comm(handles().ghosts[size_t(which - ghosts_from)].comm);
      MPI_Comm bulk = split::make_bulk(real);
      PMPI_Comm_free(&real);  // taken part in; nothing here uses it
      if (bulk != MPI_COMM_NULL) PMPI_Comm_free(&bulk);
      made[gid] = {MPI_COMM_NULL, MPI_COMM_NULL};
    } else {
      MPI_Comm real = build_comm(*from_log[size_t(which - log_from)]);
      made[gid] = {real, split::make_bulk(real)};
    }
  }
  // (A zombie keeps its MPICH communicator: a receive pending on it is posted again.)
  comms().for_each([&](int, auto &slot) {
    if (slot.refs > 0) restore_comm_properties(slot.info, slot.real);
  });
  restore_comm_properties(handles().world, MPI_COMM_WORLD);
  restore_comm_properties(handles().self, MPI_COMM_SELF);
  return made;
}

}  // namespace c3::mpi
