// The application API of include/c3/c3.h.
#include "c3/c3.h"
#include "lifecycle/runtime_state.hpp"

extern "C" int c3_restarting(void) { return c3::process_state().restarted ? 1 : 0; }

extern "C" int c3_on_restart(void (*callback)(void *arg), void *arg) {
  auto &callbacks = c3::persistent_state().on_restart;
  if (!callback || callbacks.size() >= c3::kMaxOnRestartCallbacks) return -1;
  callbacks.push_back(c3::OnRestartCallback{reinterpret_cast<uintptr_t>(callback),
                                            reinterpret_cast<uintptr_t>(arg)});
  return 0;
}

extern "C" long c3_restart_checkpoint(void) {
  return static_cast<long>(c3::process_state().restart_checkpoint);
}
