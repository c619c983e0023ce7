#include "lifecycle/runtime_state.hpp"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/vector.hpp>
#include <cstring>
#include <sstream>

#include "store/bounded_archive.hpp"
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
// Our magic is checked first, so bytes that are not our archive never reach Boost.
constexpr char kMagic[8] = {'C', '3', 'S', 'T', 'A', 'T', 'E', '1'};
}  // namespace

std::string encode_persistent_state(const PersistentState &state) {
  std::ostringstream out;
  out.write(kMagic, sizeof kMagic);
  {
    boost::archive::binary_oarchive ar(out, boost::archive::no_header);
    ar << state;
  }
  return out.str();
}

PersistentState decode_persistent_state(const void *data, size_t size, const std::string &path) {
  PersistentState state;
  if (size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0)
    throw CorruptCheckpoint(path + ": section RUNTIME: not a c3 runtime state");
  try {
    std::istringstream in(std::string(static_cast<const char *>(data) + sizeof kMagic,
                                      size - sizeof kMagic));
    BoundedIArchive ar(in, boost::archive::no_header);
    ar >> state;
  } catch (const boost::archive::archive_exception &e) {
    throw CorruptCheckpoint(path + ": section RUNTIME: " + e.what());
  } catch (const std::bad_alloc &) {
    throw CorruptCheckpoint(path + ": section RUNTIME: implausible sizes");
  }
  if (state.on_restart.size() > kMaxOnRestartCallbacks)
    throw CorruptCheckpoint(path + ": section RUNTIME: too many restart callbacks");
  if (state.atexit_handlers.size() > kMaxAtexitHandlers)
    throw CorruptCheckpoint(path + ": section RUNTIME: too many atexit handlers");
  return state;
}

}  // namespace c3
