#include "runtime_state.hpp"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/vector.hpp>
#include <sstream>

#include "error.hpp"

namespace c3 {

PersistentState &persistent_state() {
  static PersistentState state;
  return state;
}

ProcessState &process_state() {
  static ProcessState state;
  return state;
}

std::string encode_persistent_state(const PersistentState &state) {
  std::ostringstream out;
  {
    boost::archive::binary_oarchive ar(out);
    ar << state;
  }
  return out.str();
}

PersistentState decode_persistent_state(const void *data, size_t size, const std::string &path) {
  PersistentState state;
  try {
    std::istringstream in(std::string(static_cast<const char *>(data), size));
    boost::archive::binary_iarchive ar(in);
    ar >> state;
  } catch (const boost::archive::archive_exception &e) {
    throw CorruptCheckpoint(path + ": section RUNTIME: " + e.what());
  } catch (const std::bad_alloc &) {
    throw CorruptCheckpoint(path + ": section RUNTIME: implausible sizes");
  }
  if (state.on_restart.size() > kMaxOnRestartCallbacks)
    throw CorruptCheckpoint(path + ": section RUNTIME: too many restart callbacks");
  return state;
}

}  // namespace c3
