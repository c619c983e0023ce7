// MPI_Mprobe/MPI_Improbe and the receives of the messages they match. A matched message is
// MPICH's until received, so no checkpoint is taken while one is outstanding (refusal()).
#include "core.hpp"
#include "mpi_hooks.hpp"
#include "piggyback.hpp"

namespace c3::mpi {
namespace {

int matching_probe(int source, int tag, MPI_Comm comm, bool blocking, int *flag,
                   MPI_Message *message, MPI_Status *status) {
  uint64_t call = next_call();
  MPI_Status st;
  if (source == MPI_PROC_NULL) {
    make_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    *message = MPI_MESSAGE_NO_PROC;
    if (flag) *flag = 1;
    if (status != MPI_STATUS_IGNORE) *status = st;
    return MPI_SUCCESS;
  }
  int found = 0;
  if (replaying(call)) {
    const Outcome &o = replayed(call);
    if (!o.flag && !blocking) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    source = o.source;  // the logged match, found again by a blocking probe
    tag = o.tag;
    blocking = true;
  }
  if (peek_late_message(comm, source, tag))
    fatal("MPI_Mprobe/MPI_Improbe matching a message logged at the checkpoint is not supported "
          "yet; use MPI_Probe + MPI_Recv");
  if (blocking) {
    PMPI_Mprobe(source, tag, comm, message, &st);
    found = 1;
  } else {
    PMPI_Improbe(source, tag, comm, &found, message, &st);
  }
  MPI_Count bytes = 0;
  if (found) {
    piggyback::fix_probe_status(st);
    PMPI_Get_elements_x(&st, MPI_BYTE, &bytes);
    rt().message_comms[*message] = comm;
  }
  if (flag) *flag = found;
  log_outcome(call, found, {}, found ? st.MPI_SOURCE : 0, found ? st.MPI_TAG : 0, int64_t(bytes));
  if (found && status != MPI_STATUS_IGNORE) *status = st;
  return MPI_SUCCESS;
}

}  // namespace

int on_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
              MPI_Status *status) noexcept {
  Entry entry;
  return matching_probe(source, tag, comm, true, nullptr, message, status);
}

int on_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
               MPI_Status *status) noexcept {
  Entry entry;
  return matching_probe(source, tag, comm, false, flag, message, status);
}

int on_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
             MPI_Status *status) noexcept {
  Entry entry;
  return receive_matched(buf, count, datatype, message, nullptr, status);
}

int on_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Request *request) noexcept {
  Entry entry;
  return receive_matched(buf, count, datatype, message, request, MPI_STATUS_IGNORE);
}

}  // namespace c3::mpi
