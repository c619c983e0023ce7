// The program's main: set up the fixed heap and stack, restore a checkpoint if asked to, and run
// the application's (renamed) main on the fixed stack. Alone in its file, so this archive member
// is linked only into programs without a main of their own.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "c3/c3_abi.h"
#include "lifecycle/checkpoint.hpp"
#include "lifecycle/config.hpp"
#include "support/error.hpp"
#include "memory/fixed_stack.hpp"
#include "io/output_commit.hpp"
#include "memory/heap_arena.hpp"
#include "process/random_state.hpp"
#include "lifecycle/restart.hpp"
#include "lifecycle/run_markers.hpp"
#include "lifecycle/runtime_state.hpp"

namespace {

int g_argc;
char **g_argv;
char **g_envp;
int g_status;

// Runs on the fixed stack. Fresh and restarted runs take exactly this path, so __c3_app_main is
// entered at the same stack pointer and every replayed frame lands at its saved address.
void run_app() {
  g_status = __c3_app_main(g_argc, g_argv, g_envp);
}

// The strings of a null-terminated vector (argv, the environment) and the array itself, in the
// arena: pointers into it then survive a restart.
char **copy_vector_to_arena(char *const *vector, const char *what) {
  size_t count = 0;
  while (vector && vector[count]) ++count;  // environ is null after clearenv()
  auto **copy = static_cast<char **>(c3::heap::malloc(sizeof(char *) * (count + 1)));
  if (!copy) throw c3::Error(std::string("out of heap arena memory while copying ") + what);
  for (size_t i = 0; i < count; ++i) {
    size_t n = std::strlen(vector[i]) + 1;
    copy[i] = static_cast<char *>(c3::heap::malloc(n));
    if (!copy[i]) throw c3::Error(std::string("out of heap arena memory while copying ") + what);
    std::memcpy(copy[i], vector[i], n);
  }
  copy[count] = nullptr;
  return copy;
}

}  // namespace

int main(int argc, char **argv) {
  const c3::Config &cfg = c3::load_config_or_exit();
  // Before anything can fail: an error that ends a restart is the end of the job for `c3 run`.
  c3::run_markers::begin(cfg.run_dir);
  try {
    c3::heap::init(c3::heap::kDefaultBase, cfg.heap_size);
    c3::fixed_stack::map(cfg.stack_size);
    c3::checkpoint::init(cfg);
    c3::PersistentState &state = c3::persistent_state();
    if (!c3::restart::prepare(cfg)) {
      state.app_argc = argc;
      state.app_argv = reinterpret_cast<uintptr_t>(copy_vector_to_arena(argv, "argv"));
      // c3's own settings are read already; from here on the program sees the copy (getenv
      // returns pointers into it), and a restart gives it back the same copy.
      state.app_environ = reinterpret_cast<uintptr_t>(copy_vector_to_arena(environ, "environ"));
      state.random_state = c3::random_state::adopt_default();
      if (cfg.verbose) {
        if (cfg.interval_ns)
          std::fprintf(stderr,
                       "c3: fresh run; checkpoints in %s every %g s and at forced pragmas, "
                       "keeping %u\n",
                       cfg.ckpt_dir.c_str(), double(cfg.interval_ns) / 1e9, cfg.keep);
        else
          std::fprintf(stderr,
                       "c3: fresh run; checkpoints in %s at forced pragmas only, keeping %u\n",
                       cfg.ckpt_dir.c_str(), cfg.keep);
      }
    }
    c3::output::begin(cfg.output);
    // A restart passes the saved arguments and environment of the first run: the arena holds
    // those copies.
    g_argc = state.app_argc;
    g_argv = reinterpret_cast<char **>(state.app_argv);
    g_envp = reinterpret_cast<char **>(state.app_environ);
    environ = g_envp;
  } catch (const c3::Error &e) {
    std::fprintf(stderr, "c3: error: %s\n", e.what());
    return 2;
  }
  try {
    c3::fixed_stack::run(run_app);
  } catch (const c3::Error &e) {
    std::fprintf(stderr, "c3: error: %s\n", e.what());
    return 2;
  }
  std::exit(g_status);
}
