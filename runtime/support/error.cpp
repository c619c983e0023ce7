// The one helper that turns errno into a c3::Error.
#include "support/error.hpp"

#include <cerrno>
#include <cstring>

namespace c3 {

void throw_sys_error(const std::string &what) {
  const int saved = errno;  // building the message may clobber errno
  throw Error(what + ": " + std::strerror(saved));
}

}  // namespace c3
