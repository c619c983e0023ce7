// The program's handles and MPICH's objects (handles/handle_table.hpp): translation for every
// MPI call, adoption of the objects calls create, freeing, and what the protocol needs to know
// of a communicator. The generated wrappers call these (protocol/gen/emit_wrappers.py).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "handles/handle_args.hpp"
#include "handles/handle_state.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi {

[[gnu::always_inline]] inline HandleState &handles() { return state().handles; }

// --- translation: the MPICH object behind the program's handle (predefined, null and untracked
// handles pass unchanged; a stale c3 handle ends the job with a clear error). Forced inline, as
// every wrapper calls them.
#define C3_TRANSLATE [[gnu::always_inline]] inline
C3_TRANSLATE MPI_Comm real_comm(MPI_Comm h) { return handles().comms.real_of(h); }
C3_TRANSLATE MPI_Group real_group(MPI_Group h) { return handles().groups.real_of(h); }
C3_TRANSLATE MPI_Datatype real_type(MPI_Datatype h) { return handles().types.real_of(h); }
C3_TRANSLATE MPI_Op real_op(MPI_Op h) { return handles().ops.real_of(h); }
C3_TRANSLATE MPI_Errhandler real_errhandler(MPI_Errhandler h) { return handles().errhandlers.real_of(h); }
C3_TRANSLATE int real_keyval(int h) { return handles().keyvals.real_of(h); }
C3_TRANSLATE MPI_Info real_info(MPI_Info h) { return handles().infos.real_of(h); }
MPI_Request real_request(MPI_Request h);  // a native request (adopt_request) behind a c3 handle

C3_TRANSLATE CommArg comm_arg(MPI_Comm h) { return CommArg{h, real_comm(h)}; }
C3_TRANSLATE TypeArg type_arg(MPI_Datatype h) { return TypeArg{h, real_type(h)}; }
#undef C3_TRANSLATE

// An array of datatypes, translated (MPI_Type_create_struct's types).
class RealTypes {
 public:
  RealTypes(const MPI_Datatype *types, int n);
  MPI_Datatype *data() { return types_.data(); }

 private:
  std::vector<MPI_Datatype> types_;
};

// --- adoption: the program's handle for an object MPICH returned.
MPI_Group adopt_group(MPI_Group real);
MPI_Datatype adopt_datatype(MPI_Datatype real);
MPI_Errhandler adopt_errhandler(MPI_Errhandler real);
MPI_Info adopt_info(MPI_Info real);
// A request made by a call c3 does not hook (a generalized or persistent collective request,
// one-sided and I/O requests): a native entry in the request table that MPI_Wait and friends
// complete through MPICH.
MPI_Request adopt_request(MPI_Request real, bool persistent);

// --- freeing: one handle less; the MPICH object goes with the last (MPI stores the null handle).
int free_group(MPI_Group *h);
int free_datatype(MPI_Datatype *h);
// A request keeps the derived datatypes it uses, as MPICH's requests do: MPI lets the program
// free a type while a nonblocking or persistent operation still uses it.
void hold_datatype(MPI_Datatype app);
void release_datatype(MPI_Datatype app);
int free_op(MPI_Op *h);
int free_errhandler(MPI_Errhandler *h);
int free_keyval(int *h);
int free_info(MPI_Info *h);

// --- communicators
// What c3 knows of a communicator: MPI_COMM_WORLD, MPI_COMM_SELF or a c3 handle (live or a
// zombie); nullptr for one c3 does not track.
CommInfo *comm_info(MPI_Comm app);
// The program's handle of an MPICH communicator (callbacks MPICH calls get MPICH's handles).
inline MPI_Comm app_comm(MPI_Comm real) { return handles().comms.app_of(real); }
inline MPI_Datatype app_type(MPI_Datatype real) { return handles().types.app_of(real); }
// Its identity across ranks (0 for an untracked one).
uint64_t comm_gid(MPI_Comm app);

// Startup: the predefined communicators' records.
void setup_handles();
// A checkpoint is taken: names, error handlers, attributes and info contents are read from
// MPICH into the records, and zombies nothing names any more are dropped.
void capture_handle_properties();

}  // namespace c3::mpi
