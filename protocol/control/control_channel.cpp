#include "control/control_channel.hpp"

#include <mpi.h>

#include <memory>

#include "layer/idle_wait.hpp"
#include "state/protocol_state.hpp"

namespace c3::mpi::control {

void post(int dest, int tag, std::vector<uint64_t> words) {
  if (words.size() < 2) words.resize(2, 0);
  auto buffer = std::make_unique<std::vector<uint64_t>>(std::move(words));
  MPI_Request req;
  PMPI_Isend(buffer->data(), int(buffer->size()), MPI_UINT64_T, dest, tag, rt().control, &req);
  rt().control_sends.push_back(req);
  rt().control_buffers.push_back(std::move(buffer));
}

void post_to_all(int tag, uint64_t a, uint64_t b) {
  for (int q = 0; q < rt().size; ++q)
    if (q != rt().rank) post(q, tag, a, b);
}

void reap(bool block) {
  auto &reqs = rt().control_sends;
  for (size_t i = 0; i < reqs.size();) {
    int done = 0;
    if (block)
      idle_wait(reqs[i], MPI_STATUS_IGNORE), done = 1;
    else
      PMPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE);
    if (done) {
      reqs.erase(reqs.begin() + long(i));
      rt().control_buffers.erase(rt().control_buffers.begin() + long(i));
    } else {
      ++i;
    }
  }
}

bool take(Message &m, bool wait) {
  MPI_Status status;
  IdleBackoff backoff;
  for (;;) {
    int flag = 0;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rt().control, &flag, &status);
    if (flag) break;
    if (!wait) return false;
    backoff.pause();
  }
  m.source = status.MPI_SOURCE;
  m.tag = status.MPI_TAG;
  int count = 0;
  PMPI_Get_count(&status, MPI_UINT64_T, &count);
  m.words.assign(size_t(count < 2 ? 2 : count), 0);
  PMPI_Recv(m.words.data(), count, MPI_UINT64_T, m.source, m.tag, rt().control,
            MPI_STATUS_IGNORE);
  return true;
}

}  // namespace c3::mpi::control
