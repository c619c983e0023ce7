// User-defined reduction operators: MPICH calls a trampoline, which calls the program's function
// with the program's datatype handle (handles/trampolines.hpp).
#include "handles/ops.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "handles/handles.hpp"
#include "handles/trampolines.hpp"
#include "layer/layer.hpp"
#include "messages/requests.hpp"
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

// Slots of freed operators: MPI lets a nonblocking collective started with an operator finish
// after the program freed it, and MPICH then still calls its trampoline. A slot is free again
// once no pending nonblocking collective uses it.
std::vector<int> g_retired;

void reclaim_retired_slots() {
  if (g_retired.empty()) return;
  std::vector<int> in_use;
  for (const Request &r : state().requests)
    if (r.kind == Request::Kind::Collective && r.active && !r.done && r.coll->op_slot >= 0)
      in_use.push_back(r.coll->op_slot);
  auto release_if_unused = [&](int slot) {
    if (std::find(in_use.begin(), in_use.end(), slot) != in_use.end()) return false;
    g_slots.release(slot);
    return true;
  };
  g_retired.erase(std::remove_if(g_retired.begin(), g_retired.end(), release_if_unused),
                  g_retired.end());
}

}  // namespace

int on_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) noexcept {
  const uint64_t function = reinterpret_cast<uint64_t>(user_fn);
  reclaim_retired_slots();
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

int op_trampoline_slot(MPI_Op app) {
  auto *slot = handles().ops.find(app);
  return slot ? slot->info.slot : -1;
}

int free_op(MPI_Op *h) {
  auto &ops = handles().ops;
  auto *slot = ops.find(*h);
  if (!slot) return PMPI_Op_free(h);
  const int trampoline = slot->info.slot;
  ops.release(*h, [&](MPI_Op real) {
    g_retired.push_back(trampoline);
    PMPI_Op_free(&real);
  });
  reclaim_retired_slots();
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
