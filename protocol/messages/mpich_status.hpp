// MPICH's MPI_Status, read and written directly: the count of bytes sits in count_lo and the
// upper bits of count_hi_and_cancelled, the cancelled flag in its bit 0. This is what
// MPI_Get_elements_x / MPI_Status_set_elements_x(MPI_BYTE) do, without a library call on every
// message (c3 depends on MPICH's handle layout anyway).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace c3::mpi {

static_assert(offsetof(MPI_Status, count_lo) == 0 && offsetof(MPI_Status, count_hi_and_cancelled) == 4,
              "c3 expects MPICH's MPI_Status layout");

inline int64_t status_bytes(const MPI_Status &st) {
  return int64_t(uint32_t(st.count_lo)) | (int64_t(uint32_t(st.count_hi_and_cancelled) >> 1) << 32);
}

inline void set_status_bytes(MPI_Status &st, int64_t bytes) {
  st.count_lo = int(uint32_t(uint64_t(bytes)));
  st.count_hi_and_cancelled =
      int((uint32_t(uint64_t(bytes) >> 32) << 1) | (uint32_t(st.count_hi_and_cancelled) & 1u));
}

inline bool status_cancelled(const MPI_Status &st) { return (st.count_hi_and_cancelled & 1) != 0; }

}  // namespace c3::mpi
