// Error handlers the program creates for communicators: MPICH calls a trampoline, which calls the
// program's function with the program's communicator handle (handles/trampolines.hpp). c3 keeps
// its own MPICH reference to each one, so a handler the program freed while a communicator still
// uses it is still known when the checkpoint records which handler each communicator has.
#include "handles/errhandlers.hpp"

#include <string>
#include <vector>

#include "handles/handles.hpp"
#include "handles/trampolines.hpp"
#include "layer/layer.hpp"
#include "mpi_hooks.hpp"

namespace c3::mpi {
namespace {

constexpr int kErrhandlerSlots = 64;
TrampolineSlots<kErrhandlerSlots> g_slots;

template <int K>
struct ErrhandlerTrampoline {
  static void call(MPI_Comm *comm, int *code, ...) {
    MPI_Comm app = app_comm(*comm);
    reinterpret_cast<MPI_Comm_errhandler_function *>(g_slots.function(K))(&app, code);
  }
};

constexpr auto kTrampolines = trampoline_table<MPI_Comm_errhandler_function, ErrhandlerTrampoline>(
    std::make_integer_sequence<int, kErrhandlerSlots>());

int create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler) {
  const uint64_t function = reinterpret_cast<uint64_t>(fn);
  const int slot = g_slots.take(function);
  if (slot < 0)
    fatal("c3 supports at most " + std::to_string(kErrhandlerSlots) +
          " error handlers created by the program");
  MPI_Errhandler real = MPI_ERRHANDLER_NULL;
  const int rc = PMPI_Comm_create_errhandler(kTrampolines[size_t(slot)], &real);
  if (rc != MPI_SUCCESS) {
    g_slots.release(slot);
    return rc;
  }
  *errhandler = handles().errhandlers.add(real, ErrhandlerInfo{function, slot});
  return rc;
}

}  // namespace

int on_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                              MPI_Errhandler *errhandler) noexcept {
  return create(comm_errhandler_fn, errhandler);
}

int on_Errhandler_create(MPI_Comm_errhandler_function *comm_errhandler_fn,
                         MPI_Errhandler *errhandler) noexcept {
  return create(comm_errhandler_fn, errhandler);
}

MPI_Errhandler adopt_errhandler(MPI_Errhandler real) {
  auto &errhandlers = handles().errhandlers;
  if (!errhandlers.tracks_real(real)) return real;  // predefined (or not the program's)
  const MPI_Errhandler app = errhandlers.app_of(real);
  auto *slot = errhandlers.find(app);
  ++slot->refs;  // also for one the program freed: it is in use by a communicator
  PMPI_Errhandler_free(&real);
  return app;
}

namespace {

bool set_on(MPI_Comm comm, MPI_Errhandler real) {
  MPI_Errhandler current = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(comm, &current);
  const bool same = current == real;
  if ((uint32_t(current) >> 30) != 1) PMPI_Errhandler_free(&current);  // the new reference
  return same;
}

// Whether a communicator the program holds still uses the error handler.
bool in_use(MPI_Errhandler real) {
  bool used = set_on(MPI_COMM_WORLD, real) || set_on(MPI_COMM_SELF, real);
  handles().comms.for_each([&](int, auto &slot) {
    if (!used && slot.refs > 0 && slot.real) used = set_on(slot.real, real);
  });
  return used;
}

}  // namespace

void release_unused_errhandlers() {
  std::vector<int> unused;
  handles().errhandlers.for_each([&](int h, auto &slot) {
    if (slot.refs == 0 && !in_use(slot.real)) unused.push_back(h);
  });
  for (int h : unused) {
    auto *slot = handles().errhandlers.find(h);
    MPI_Errhandler real = slot->real;
    g_slots.release(slot->info.slot);
    handles().errhandlers.erase(h);
    PMPI_Errhandler_free(&real);
  }
}

int free_errhandler(MPI_Errhandler *h) {
  auto &errhandlers = handles().errhandlers;
  auto *slot = errhandlers.find(*h);
  if (!slot) return PMPI_Errhandler_free(h);
  if (slot->refs == 0) invalid_handle(ObjectKind::Errhandler, *h);
  // c3's own MPICH reference stays while a communicator uses the handler.
  if (--slot->refs == 0) release_unused_errhandlers();
  *h = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

void recreate_errhandlers() {
  handles().errhandlers.for_each([](int h, auto &slot) {
    g_slots.bind(slot.info.slot, slot.info.function);
    MPI_Errhandler real = MPI_ERRHANDLER_NULL;
    PMPI_Comm_create_errhandler(kTrampolines[size_t(slot.info.slot)], &real);
    handles().errhandlers.set_real(h, real);
  });
}

void free_errhandlers_at_finalize() {
  handles().errhandlers.for_each([](int, auto &slot) {
    if (slot.real) PMPI_Errhandler_free(&slot.real);
  });
}

}  // namespace c3::mpi
