#include "lifecycle/runtime_state.hpp"

#include <boost/serialization/vector.hpp>

#include "store/archived_section.hpp"
#include "support/error.hpp"

namespace c3 {

PersistentState &persistent_state() {
  static PersistentState state;
  return state;
}

ProcessState &process_state() {
  static ProcessState state;
  return state;
}

namespace {
constexpr char kMagic[8] = {'C', '3', 'S', 'T', 'A', 'T', 'E', '1'};
}  // namespace

std::string encode_persistent_state(const PersistentState &state) {
  return encode_archived(kMagic, state);
}

PersistentState decode_persistent_state(const void *data, size_t size, const std::string &path) {
  PersistentState state = decode_archived<PersistentState>(
      data, size, kMagic, path + ": section RUNTIME", "a c3 runtime state");
  if (state.on_restart.size() > kMaxOnRestartCallbacks)
    throw CorruptCheckpoint(path + ": section RUNTIME: too many restart callbacks");
  if (state.atexit_handlers.size() > kMaxAtexitHandlers)
    throw CorruptCheckpoint(path + ": section RUNTIME: too many atexit handlers");
  return state;
}

}  // namespace c3
