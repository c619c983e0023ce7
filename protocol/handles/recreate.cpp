// Every MPI object the program holds, at a checkpoint and at a restart (handles/).
#include "handles/recreate.hpp"

#include "handles/attributes.hpp"
#include "handles/communicators.hpp"
#include "handles/datatypes.hpp"
#include "handles/errhandlers.hpp"
#include "handles/groups.hpp"
#include "handles/handles.hpp"
#include "handles/infos.hpp"
#include "handles/ops.hpp"

namespace c3::mpi {

void capture_handle_properties() {
  retire_unused_comms();
  drop_unnamed_datatypes();
  release_unused_errhandlers();
  capture_comm_properties();
  capture_datatype_names();
  handles().types.for_each([](int, auto &slot) {
    if (slot.refs > 0) capture_attributes(slot.info, slot.real);
  });
  capture_infos();
}

void recreate_handles(const CheckpointLog &replay) {
  // Objects others are built from come first: keyvals and error handlers before the
  // communicators and datatypes that use them, component datatypes before derived ones.
  recreate_groups();
  recreate_infos();
  recreate_keyvals();
  recreate_errhandlers();
  recreate_ops();
  recreate_datatypes();
  handles().types.for_each([](int, auto &slot) {
    if (slot.refs > 0) restore_attributes(slot.info, slot.real);
  });
  std::vector<const CommInfo *> from_log;
  for (const LoggedCollective &l : replay.collectives)
    if (l.made_comm && l.got_comm) from_log.push_back(&l.comm);
  auto made = recreate_comms(from_log);
  rt().precreated.clear();
  for (const CommInfo *c : from_log) rt().precreated[c->gid] = made[c->gid];
}

}  // namespace c3::mpi
