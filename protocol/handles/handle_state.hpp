// What c3 keeps of every MPI object the program holds, saved with each checkpoint: enough to
// re-create each object with the same meaning behind the same handle after a restart.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "handles/handle_table.hpp"

namespace c3::mpi {

// An attribute cached on a communicator or datatype: the keyval (a c3 or predefined handle) and
// the value the program stored (read from MPICH when the checkpoint is taken).
struct Attribute {
  int keyval = 0;
  uint64_t value = 0;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &keyval &value;
  }
};

struct GroupInfo {
  std::vector<int> world;  // the members' ranks in MPI_COMM_WORLD, in group order
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &world;
  }
};

// How MPICH describes a derived datatype (MPI_Type_get_envelope/contents), with the component
// datatypes as the program's handles: a restart builds the type again from it.
struct TypeInfo {
  int combiner = 0;
  std::vector<int> ints;
  std::vector<int64_t> aints;
  std::vector<int> types;      // program handles (predefined or c3)
  bool committed = false;
  uint32_t dependants = 0;     // entries whose recipe names this one
  std::string name;            // captured at the checkpoint
  std::vector<Attribute> attrs;  // captured at the checkpoint
  // Not saved: whether the type is a plain run of bytes, found at its first message
  // (messages/piggyback.cpp); 0 not known yet, 1 yes, 2 no.
  uint8_t plain_bytes = 0;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &combiner &ints &aints &types &committed &dependants &name &attrs;
  }
};

// User-defined reduction operator: MPICH calls a trampoline of c3 (slot), which hands the
// program's function its datatype as the program's handle.
struct OpInfo {
  uint64_t function = 0;  // MPI_User_function * (code addresses are fixed: -no-pie)
  int commute = 1;
  int slot = -1;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &function &commute &slot;
  }
};

struct ErrhandlerInfo {
  uint64_t function = 0;  // MPI_Comm_errhandler_function *
  int slot = -1;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &function &slot;
  }
};

// An attribute key. MPICH calls c3's copy/delete trampolines with this keyval's handle as extra
// state; they call the program's callbacks with the program's handles.
struct KeyvalInfo {
  enum Object : int { kComm = 0, kDatatype = 1 };
  int object = kComm;
  uint64_t copy_fn = 0, delete_fn = 0, extra_state = 0;
  bool freed = false;  // MPI_*_free_keyval: kept while attributes may use it
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &object &copy_fn &delete_fn &extra_state &freed;
  }
};

struct InfoObjectInfo {
  std::vector<std::pair<std::string, std::string>> entries;  // captured at the checkpoint
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &entries;
  }
};

struct Topology {
  int kind = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH
  std::vector<int> dims, periods;                 // cartesian
  std::vector<int> index, edges;                  // graph
  std::vector<int> sources, source_weights, destinations, destination_weights;  // dist graph
  bool weighted = false;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &kind &dims &periods &index &edges &sources &source_weights &destinations
        &destination_weights &weighted;
  }
};

// A communicator. Its identity across ranks is `gid`: derived from how it was created (the
// parent's gid and call number, and its members), so every member computes the same value.
struct CommInfo {
  uint64_t gid = 0;
  bool inter = false;
  int rank = 0;                   // this process's rank in it (local group)
  std::vector<int> world;         // (local) group in MPI_COMM_WORLD ranks, in rank order
  std::vector<int> remote_world;  // intercommunicator: the remote group
  Topology topology;
  uint64_t seq = 0;               // collective calls this process started on it
  uint64_t created_epoch = 0;     // the epoch it was created in (Checkpoint-Initiated says so)
  bool keyed = false;             // made by a call not numbered on a parent (its gid is the key)
  std::string name;               // captured at the checkpoint
  int errhandler = 0;             // captured at the checkpoint (program handle; 0: MPICH default)
  std::vector<Attribute> attrs;   // captured at the checkpoint
  MPI_Comm bulk = MPI_COMM_NULL;  // payloads of split messages (messages/split_transfer.hpp; not saved)
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &gid &inter &rank &world &remote_world &topology &seq &created_epoch &keyed &name
        &errhandler &attrs;
  }
  int size() const { return int(world.size()); }
};

// A communicator the program freed, still needed to re-create it at a restart with the members
// that hold it (docs/protocol.md "Communicators"): dropped once every member said it freed it.
struct Ghost {
  CommInfo comm;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &comm;
  }
};

constexpr uint64_t kWorldGid = 1, kSelfGid = 2;

struct HandleState {
  HandleTable<ObjectKind::Comm, CommInfo> comms;
  HandleTable<ObjectKind::Group, GroupInfo> groups;
  HandleTable<ObjectKind::Datatype, TypeInfo> types;
  HandleTable<ObjectKind::Op, OpInfo> ops;
  HandleTable<ObjectKind::Errhandler, ErrhandlerInfo> errhandlers;
  HandleTable<ObjectKind::Keyval, KeyvalInfo> keyvals;
  HandleTable<ObjectKind::Info, InfoObjectInfo> infos;
  CommInfo world, self;            // MPI_COMM_WORLD and MPI_COMM_SELF (predefined handles)
  std::vector<Ghost> ghosts;
  std::map<uint64_t, uint64_t> keyed_creations;  // creations not numbered on a parent: occurrences
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &comms &groups &types &ops &errhandlers &keyvals &infos &world &self &ghosts
        &keyed_creations;
  }
};

}  // namespace c3::mpi
