#include "store/bounded_archive.hpp"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/impl/archive_serializer_map.ipp>
#include <boost/archive/impl/basic_binary_iarchive.ipp>
#include <boost/archive/impl/basic_binary_iprimitive.ipp>

namespace c3 {

void BoundedIArchive::load(std::string &s) {
  std::size_t length = 0;
  Base::load(length);
  if (length > std::size_t(left()))
    boost::serialization::throw_exception(
        boost::archive::archive_exception(boost::archive::archive_exception::input_stream_error));
  s.resize(length);
  if (length) load_binary(&s[0], length);
}

static_assert(sizeof(bool) == 1, "Boost writes a bool as one byte here");

void BoundedIArchive::load(bool &b) {
  unsigned char byte = 0;
  load_binary(&byte, 1);
  if (byte > 1)
    boost::serialization::throw_exception(
        boost::archive::archive_exception(boost::archive::archive_exception::input_stream_error));
  b = byte != 0;
}

void BoundedIArchive::load_override(boost::serialization::collection_size_type &t) {
  Base::load_override(t);
  if (std::size_t(t) > std::size_t(left()))
    boost::serialization::throw_exception(
        boost::archive::archive_exception(boost::archive::archive_exception::input_stream_error));
}

}  // namespace c3

// The archive's templates, instantiated for it (Boost's library holds only its own archives').
namespace boost::archive {
template class detail::archive_serializer_map<c3::BoundedIArchive>;
template class basic_binary_iarchive<c3::BoundedIArchive>;
template class basic_binary_iprimitive<c3::BoundedIArchive, std::istream::char_type,
                                       std::istream::traits_type>;
template class binary_iarchive_impl<c3::BoundedIArchive, std::istream::char_type,
                                    std::istream::traits_type>;
}  // namespace boost::archive
