// Boost's binary input archive, bounded by the bytes it reads from: a collection or string
// whose length exceeds the bytes left (each element takes at least one) is damage, refused
// before anything is allocated. Plain Boost trusts such a length and allocates (and zeroes) what
// it says, gigabytes for a flipped byte in a length field.
#pragma once
#include <boost/archive/binary_iarchive_impl.hpp>
#include <boost/archive/detail/register_archive.hpp>
#include <boost/serialization/collection_size_type.hpp>

#include <istream>
#include <string>

namespace c3 {

class BoundedIArchive
    : public boost::archive::binary_iarchive_impl<BoundedIArchive, std::istream::char_type,
                                                  std::istream::traits_type> {
  using Base = boost::archive::binary_iarchive_impl<BoundedIArchive, std::istream::char_type,
                                                    std::istream::traits_type>;

 public:
  BoundedIArchive(std::istream &in, unsigned flags) : Base(in, flags), in_(in) { init(flags); }

  // Boost's dispatch reaches these through the most derived archive (its primitive loads call
  // This()->load, so they are public).
  using Base::load;
  void load(std::string &s);
  void load(bool &b);  // a damaged byte is no bool (reading it as one is undefined)

  friend class boost::archive::detail::interface_iarchive<BoundedIArchive>;
  friend class boost::archive::basic_binary_iarchive<BoundedIArchive>;
  friend class boost::archive::load_access;

 protected:
  template <class T>
  void load_override(T &t) {
    Base::load_override(t);
  }
  void load_override(boost::serialization::collection_size_type &t);

 private:
  // Bytes not yet read.
  std::streamsize left() const { return in_.rdbuf()->in_avail(); }
  std::istream &in_;
};

}  // namespace c3

BOOST_SERIALIZATION_REGISTER_ARCHIVE(c3::BoundedIArchive)
BOOST_SERIALIZATION_USE_ARRAY_OPTIMIZATION(c3::BoundedIArchive)
