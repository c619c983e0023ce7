// Start and end of MPI, buffered-send buffers and queries. After a restart MPI is already
// running (the restart started it) when the replay skips the program's MPI_Init.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "handles/datatypes.hpp"
#include "layer/layer.hpp"
#include "messages/requests.hpp"
#include "modes/epochs.hpp"
#include "mpi_hooks.hpp"
#include "io/output_commit.hpp"

namespace c3::mpi {
namespace {

// c3's own buffer behind MPI_Buffer_attach: every message carries a header, so the program's
// buffer, sized for its messages, could be too small.
char *g_bsend_buffer = nullptr;

int init_common(int *argc, char ***argv, int required, int *provided) {
  Runtime &r = rt();
  int rc = MPI_SUCCESS;
  if (!r.initialized) {
    int got = MPI_THREAD_SINGLE;
    rc = init_mpi(argc, argv, &got);
    if (rc != MPI_SUCCESS) return rc;
    // The program gets the level it asked for (docs/user-guide.md: one thread at a time).
    state().thread_level = std::min(required, MPI_THREAD_MULTIPLE);
    setup_after_init(false);
  }
  if (provided) *provided = state().thread_level;
  r.app_initialized = true;
  return rc;
}

}  // namespace

int init_mpi(int *argc, char ***argv, int *got) {
  // One thread calls MPI at a time (docs/user-guide.md): MPICH's single-threaded paths, which
  // take no lock per call, serve every level a program may ask for. A restart initializes MPI
  // before it knows the level the program asked for; this one is right for every program.
  return PMPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, got);
}

void attach_bsend_buffer(int size) {
  // Room for one header per message the program's buffer could hold.
  long extra = (long(size) / MPI_BSEND_OVERHEAD + 1) * 8 + 64;
  long total = long(size) + extra;
  g_bsend_buffer = static_cast<char *>(std::malloc(size_t(total)));
  PMPI_Buffer_attach(g_bsend_buffer, int(total));
}

int on_Init(int *argc, char ***argv) noexcept {
  return init_common(argc, argv, MPI_THREAD_SINGLE, nullptr);
}

int on_Init_thread(int *argc, char ***argv, int required, int *provided) noexcept {
  return init_common(argc, argv, required, provided);
}

int on_Finalize() noexcept {
  finalize_protocol();
  release_datatypes_at_finalize();
  return PMPI_Finalize();
}

// The program ends itself: what it printed is shown (a failure to recover from looks different).
int on_Abort(CommArg comm, int errorcode) noexcept {
  output::release();
  return PMPI_Abort(comm.real, errorcode);
}

int on_Query_thread(int *provided) noexcept {
  *provided = state().thread_level;
  return MPI_SUCCESS;
}

int on_Initialized(int *flag) noexcept {
  *flag = rt().app_initialized;
  return MPI_SUCCESS;
}


int on_Buffer_attach(void *buffer, int size) noexcept {
  ProtocolState &st = state();
  if (st.bsend_user_buffer) return PMPI_Buffer_attach(buffer, size);  // MPICH reports the error
  st.bsend_user_buffer = reinterpret_cast<uintptr_t>(buffer);
  st.bsend_user_size = size;
  attach_bsend_buffer(size);
  return MPI_SUCCESS;
}

int on_Buffer_detach(void *buffer_addr, int *size) noexcept {
  ProtocolState &st = state();
  if (!st.bsend_user_buffer) return PMPI_Buffer_detach(buffer_addr, size);
  complete_orphans(true);  // c3's own buffered sends finish first, as MPI's would
  void *ours = nullptr;
  int our_size = 0;
  int rc = PMPI_Buffer_detach(&ours, &our_size);  // waits for pending buffered sends
  std::free(g_bsend_buffer);
  g_bsend_buffer = nullptr;
  void *user = reinterpret_cast<void *>(st.bsend_user_buffer);
  std::memcpy(buffer_addr, &user, sizeof user);
  *size = st.bsend_user_size;
  st.bsend_user_buffer = 0;
  st.bsend_user_size = 0;
  return rc;
}

}  // namespace c3::mpi
