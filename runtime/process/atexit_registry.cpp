#include "process/atexit_registry.hpp"

#include <cstdio>
#include <cstdlib>

#include "c3/c3_abi.h"
#include "lifecycle/runtime_state.hpp"

namespace c3::atexit_registry {

void register_saved() {
  for (uintptr_t handler : persistent_state().atexit_handlers)
    if (std::atexit(reinterpret_cast<void (*)()>(handler)) != 0)
      std::fprintf(stderr, "c3: warning: cannot register an atexit handler again after the "
                           "restart; it will not run at exit\n");
}

}  // namespace c3::atexit_registry

extern "C" int __c3_atexit(void (*function)(void)) {
  auto &handlers = c3::persistent_state().atexit_handlers;
  if (!function || handlers.size() >= c3::kMaxAtexitHandlers) return -1;
  if (std::atexit(function) != 0) return -1;
  handlers.push_back(reinterpret_cast<uintptr_t>(function));
  return 0;
}
