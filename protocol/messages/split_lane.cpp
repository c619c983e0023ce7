// The split-message lane's nonblocking calls (split_lane.hpp); its MPI_Waitall is the small
// lane's (small_completion.cpp).
#include "messages/split_lane.hpp"

#include "hooks/fast_paths.hpp"
#include "layer/layer.hpp"
#include "modes/epochs.hpp"

namespace c3::mpi {

uint64_t split_lane::g_finished = 0;

int fast::isend_split(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Request *request) {
  Request *r;
  MPI_Request h = take_small_slot(Request::Kind::Send, &r);
  describe_message(*r, buf, count, type, type, dest, tag, MPI_COMM_WORLD, MPI_COMM_WORLD);
  r->send_mode = SendMode::Standard;
  r->split_lane = true;
  r->split_send = true;
  ++state().sent[size_t(dest)];  // counted once it is started, as start_send counts it
  const int32_t header = piggyback::make_header(state().epoch, false);  // quiet(): Run mode
  ++g_depth;  // inside the layer while in MPICH
  const int rc = split::send(buf, count, type, dest, tag, CommArg{MPI_COMM_WORLD, MPI_COMM_WORLD},
                             SendMode::Standard, header, &r->real);
  --g_depth;
  if (rc != MPI_SUCCESS) {
    split_lane::release(*r, h);
    return rc;
  }
  *request = h;
  return MPI_SUCCESS;
}

bool fast::irecv_preposted(void *buf, int count, MPI_Datatype type, int64_t bytes, int source,
                           int tag, MPI_Request *request, int &rc) {
  ProtocolState &st = state();
  if (uint32_t(source) >= uint32_t(rt().size)) return false;
  if (!(prepost::surely_eligible(MPI_COMM_WORLD, source, tag) && !split::payloads_drained()) &&
      !prepost::eligible(MPI_COMM_WORLD, source, tag, bytes, st.next_posting))
    return false;
  Request *r;
  MPI_Request h = take_small_slot(Request::Kind::Recv, &r);
  describe_message(*r, buf, count, type, type, source, tag, MPI_COMM_WORLD, MPI_COMM_WORLD);
  r->send_mode = SendMode::Standard;
  r->split_lane = true;
  r->posting = st.next_posting++;
  r->effective_source = source;
  r->effective_tag = tag;
  const piggyback::Wire w = piggyback::prepare_header_recv(*r, buf);
  ++g_depth;
  rc = PMPI_Irecv(const_cast<void *>(w.buf), w.count, w.type, source, tag, MPI_COMM_WORLD,
                  &r->real);
  if (rc == MPI_SUCCESS) prepost::post_on_world(*r);  // and the payload's receive
  --g_depth;
  if (rc != MPI_SUCCESS) {
    split_lane::release(*r, h);
    return true;
  }
  *request = h;
  return true;
}

}  // namespace c3::mpi
