// A section payload written with Boost.Serialization: an 8-byte magic of its own, then the value
// in Boost's binary archive. The magic is checked first, so bytes that are not the archive never
// reach Boost, and the value is read with the bounded archive.
#pragma once
#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <cstring>
#include <new>
#include <sstream>
#include <string>

#include "store/bounded_archive.hpp"
#include "support/error.hpp"

namespace c3 {

template <class T>
std::string encode_archived(const char (&magic)[8], const T &value) {
  std::ostringstream out;
  out.write(magic, sizeof magic);
  {
    boost::archive::binary_oarchive ar(out, boost::archive::no_header);
    ar << value;
  }
  return out.str();
}

// Throws CorruptCheckpoint "<where>: ..." on damage; `kind` names the value in the message for a
// wrong magic ("<where>: not a c3 file table").
template <class T>
T decode_archived(const void *data, size_t size, const char (&magic)[8], const std::string &where,
                  const char *kind) {
  if (size < sizeof magic || std::memcmp(data, magic, sizeof magic) != 0)
    throw CorruptCheckpoint(where + ": not " + kind);
  T value{};
  try {
    std::istringstream in(
        std::string(static_cast<const char *>(data) + sizeof magic, size - sizeof magic));
    BoundedIArchive ar(in, boost::archive::no_header);
    ar >> value;
  } catch (const boost::archive::archive_exception &e) {
    throw CorruptCheckpoint(where + ": " + e.what());
  } catch (const std::bad_alloc &) {
    throw CorruptCheckpoint(where + ": implausible sizes");
  } catch (const std::exception &e) {  // e.g. length_error from a length no vector can have
    throw CorruptCheckpoint(where + ": " + e.what());
  }
  return value;
}

}  // namespace c3
