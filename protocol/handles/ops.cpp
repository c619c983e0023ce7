// User-defined reduction operators: MPICH calls a trampoline, which calls the program's function
// with the program's datatype handle (handles/trampolines.hpp).
#include "handles/ops.hpp"

#include <string>

#include "handles/handles.hpp"
#include "handles/trampolines.hpp"
#include "layer/layer.hpp"
#include "mpi_hooks.hpp"

namespace c3::mpi {
namespace {

constexpr int kOpSlots = 64;
TrampolineSlots<kOpSlots> g_slots;

template <int K>
struct OpTrampoline {
  static void call(void *in, void *inout, int *len, MPI_Datatype *type) {
    MPI_Datatype app = app_type(*type);
    reinterpret_cast<MPI_User_function *>(g_slots.function(K))(in, inout, len, &app);
  }
};

constexpr auto kTrampolines = trampoline_table<MPI_User_function, OpTrampoline>(
    std::make_integer_sequence<int, kOpSlots>());

}  // namespace

int on_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) noexcept {
  const uint64_t function = reinterpret_cast<uint64_t>(user_fn);
  const int slot = g_slots.take(function);
  if (slot < 0)
    fatal("c3 supports at most " + std::to_string(kOpSlots) +
          " user-defined reduction operators alive at once (MPI_Op_create)");
  MPI_Op real = MPI_OP_NULL;
  const int rc = PMPI_Op_create(kTrampolines[size_t(slot)], commute, &real);
  if (rc != MPI_SUCCESS) {
    g_slots.release(slot);
    return rc;
  }
  *op = handles().ops.add(real, OpInfo{function, commute, slot});
  return rc;
}

int free_op(MPI_Op *h) {
  auto &ops = handles().ops;
  auto *slot = ops.find(*h);
  if (!slot) return PMPI_Op_free(h);
  const int trampoline = slot->info.slot;
  ops.release(*h, [&](MPI_Op real) {
    g_slots.release(trampoline);
    PMPI_Op_free(&real);
  });
  *h = MPI_OP_NULL;
  return MPI_SUCCESS;
}

void recreate_ops() {
  handles().ops.for_each([](int h, auto &slot) {
    g_slots.bind(slot.info.slot, slot.info.function);
    MPI_Op real = MPI_OP_NULL;
    PMPI_Op_create(kTrampolines[size_t(slot.info.slot)], slot.info.commute, &real);
    handles().ops.set_real(h, real);
  });
}

}  // namespace c3::mpi
