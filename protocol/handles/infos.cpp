// Info objects: their contents are read when a checkpoint is taken and set again at a restart.
#include "handles/infos.hpp"

#include <string>

#include "handles/handles.hpp"

namespace c3::mpi {

MPI_Info adopt_info(MPI_Info real) {
  if (real == MPI_INFO_NULL || (uint32_t(real) >> 30) == 1) return real;  // null, MPI_INFO_ENV
  auto &infos = handles().infos;
  if (const MPI_Info app = infos.adopt_known(real, [](MPI_Info i) { PMPI_Info_free(&i); }))
    return app;
  return infos.add(real, InfoObjectInfo{});
}

int free_info(MPI_Info *h) {
  auto &infos = handles().infos;
  if (!infos.find(*h)) return PMPI_Info_free(h);
  infos.release(*h, [](MPI_Info i) { PMPI_Info_free(&i); });
  *h = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

void capture_infos() {
  handles().infos.for_each([](int, auto &slot) {
    slot.info.entries.clear();
    int n = 0;
    PMPI_Info_get_nkeys(slot.real, &n);
    for (int i = 0; i < n; ++i) {
      char key[MPI_MAX_INFO_KEY + 1] = {};
      PMPI_Info_get_nthkey(slot.real, i, key);
      int length = 0, flag = 0;
      PMPI_Info_get_valuelen(slot.real, key, &length, &flag);
      std::string value(size_t(length) + 1, '\0');
      PMPI_Info_get(slot.real, key, length, value.data(), &flag);
      value.resize(size_t(length));
      slot.info.entries.emplace_back(key, value);
    }
  });
}

void recreate_infos() {
  handles().infos.for_each([](int h, auto &slot) {
    MPI_Info real;
    PMPI_Info_create(&real);
    for (const auto &[key, value] : slot.info.entries) PMPI_Info_set(real, key.c_str(), value.c_str());
    handles().infos.set_real(h, real);
  });
}

}  // namespace c3::mpi
