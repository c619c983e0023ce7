// Piggyback headers and the wire types that carry them: messages sent to this very rank over
// MPI_COMM_SELF with PMPI_, prepared and finished by piggyback.cpp as the protocol does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "messages/piggyback.hpp"

namespace pb = c3::mpi::piggyback;
using c3::mpi::Request;

namespace {

constexpr int kBounceLimitBytes = int(pb::kBounceLimit);

// What a receive produced after finish_recv.
struct Received {
  bool had_header = false;
  int32_t header = 0;
  MPI_Status status{};
};

Request receive_request(void *buf, int count, MPI_Datatype type) {
  Request r;
  r.kind = Request::Kind::Recv;
  r.buf = reinterpret_cast<uintptr_t>(buf);
  r.count = count;
  r.type = type;
  return r;
}

// Posts the receive first, then the send, both through the piggyback wire types.
Received send_to_self(const void *sbuf, int scount, MPI_Datatype stype, int32_t header, void *rbuf,
                      int rcount, MPI_Datatype rtype, int tag = 7) {
  Request rr = receive_request(rbuf, rcount, rtype), sr;
  sr.kind = Request::Kind::Send;
  pb::Wire rw = pb::prepare_recv(rr, rbuf, rcount, rtype);
  MPI_Request rreq, sreq;
  REQUIRE(PMPI_Irecv(const_cast<void *>(rw.buf), rw.count, rw.type, 0, tag, MPI_COMM_SELF, &rreq) ==
          MPI_SUCCESS);
  pb::Wire sw = pb::prepare_send(sr, sbuf, scount, stype, header);
  REQUIRE(PMPI_Isend(sw.buf, sw.count, sw.type, 0, tag, MPI_COMM_SELF, &sreq) == MPI_SUCCESS);
  Received out;
  MPI_Status sst;
  REQUIRE(PMPI_Wait(&sreq, &sst) == MPI_SUCCESS);
  REQUIRE(PMPI_Wait(&rreq, &out.status) == MPI_SUCCESS);
  REQUIRE(out.status.MPI_ERROR == MPI_SUCCESS);
  pb::release(sr);
  out.had_header = pb::finish_recv(rr, out.status, out.header) == pb::Arrival::Payload;
  pb::release(rr);
  CHECK(rr.wire == MPI_DATATYPE_NULL);
  CHECK(rr.bounce.capacity() <= 64);  // a large bounce buffer is given back
  return out;
}

int count_of(const MPI_Status &st, MPI_Datatype type) {
  int n = -1;
  PMPI_Get_count(&st, type, &n);
  return n;
}

template <class T>
std::vector<T> pattern(size_t n, int seed);

template <>
std::vector<int> pattern<int>(size_t n, int seed) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = int(i) * 7919 - seed;
  return v;
}
template <>
std::vector<double> pattern<double>(size_t n, int seed) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = double(i) * 0.25 - seed;
  return v;
}
template <>
std::vector<char> pattern<char>(size_t n, int seed) {
  std::vector<char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = char((i * 31 + size_t(seed)) & 0xff);  // zeros included
  return v;
}

template <class T>
MPI_Datatype mpi_type_of();
template <>
MPI_Datatype mpi_type_of<int>() { return MPI_INT; }
template <>
MPI_Datatype mpi_type_of<double>() { return MPI_DOUBLE; }
template <>
MPI_Datatype mpi_type_of<char>() { return MPI_CHAR; }

// One message of `count` elements; the receive buffer may be larger than the message.
template <class T>
void check_round_trip(int count, int capacity, int32_t header) {
  const MPI_Datatype type = mpi_type_of<T>();
  const T guard = pattern<T>(1, 99)[0];
  // One element more than the receive buffer: what the message does not fill stays untouched.
  std::vector<T> sent = pattern<T>(size_t(count), capacity), got(size_t(capacity) + 1, guard);
  Received r = send_to_self(sent.data(), count, type, header, got.data(), capacity, type);
  REQUIRE(r.had_header);
  CHECK(r.header == header);
  CHECK(count_of(r.status, type) == count);
  MPI_Count bytes = 0;
  PMPI_Get_elements_x(&r.status, MPI_BYTE, &bytes);
  CHECK(bytes == MPI_Count(count) * MPI_Count(sizeof(T)));
  CHECK(r.status.MPI_SOURCE == 0);
  CHECK(r.status.MPI_TAG == 7);
  if (count > 0) CHECK(std::memcmp(got.data(), sent.data(), size_t(count) * sizeof(T)) == 0);
  for (size_t i = size_t(count); i < got.size(); ++i) REQUIRE(std::memcmp(&got[i], &guard, sizeof(T)) == 0);
}

}  // namespace

TEST_CASE("piggyback: make_header/read_header round trip every colour and logging bit",
          "[piggyback]") {
  std::vector<int32_t> seen;
  for (uint64_t epoch : {0ull, 1ull, 2ull, 3ull, 4ull, 7ull, 1001ull, ~0ull}) {
    for (bool logging : {false, true}) {
      int32_t h = pb::make_header(epoch, logging);
      int colour = -1;
      bool got_logging = !logging;
      REQUIRE(pb::read_header(h, colour, got_logging));
      CHECK(colour == int(epoch & 3));
      CHECK(got_logging == logging);
      if (epoch < 4) seen.push_back(h);
      else CHECK(h == pb::make_header(epoch & 3, logging));  // only the colour travels
    }
  }
  // The 8 (colour, logging) combinations have 8 distinct headers.
  std::sort(seen.begin(), seen.end());
  CHECK(std::unique(seen.begin(), seen.end()) == seen.end());
  CHECK(seen.size() == 8);
}

TEST_CASE("piggyback: values without the c3 marker are not headers", "[piggyback]") {
  const int32_t ours = pb::make_header(2, true);
  int colour = 7;
  bool logging = false;
  for (int32_t foreign : {0, -1, 1, 42, 0x7fffffff, int32_t(0x80000000u), int32_t(0x5c200006),
                          int32_t(0x5c400000), int32_t(0xdc300005), int32_t(0x1c300001)}) {
    INFO("value " << foreign);
    CHECK_FALSE(pb::read_header(foreign, colour, logging));
  }
  // Any change to the marker's 12 bits makes it foreign.
  for (int bit = 20; bit < 32; ++bit) {
    INFO("bit " << bit);
    CHECK_FALSE(pb::read_header(ours ^ int32_t(1u << bit), colour, logging));
  }
  // A rejected value leaves the outputs alone.
  CHECK(colour == 7);
  CHECK_FALSE(logging);
  // Every other top-12-bit pattern is foreign too.
  int accepted = 0;
  for (uint32_t top = 0; top < 4096; ++top)
    accepted += pb::read_header(int32_t(top << 20 | 5), colour, logging);
  CHECK(accepted == 1);
  CHECK(colour == 1);
  CHECK(logging);
}

TEMPLATE_TEST_CASE("piggyback: payload, header and count survive a transfer to self",
                   "[piggyback]", int, double, char) {
  const int per_limit = kBounceLimitBytes / int(sizeof(TestType));
  const int32_t header = pb::make_header(3, true);
  SECTION("small: one element") { check_round_trip<TestType>(1, 1, header); }
  SECTION("small: a few elements") { check_round_trip<TestType>(13, 13, header); }
  SECTION("exactly the bounce limit") { check_round_trip<TestType>(per_limit, per_limit, header); }
  SECTION("one element past the bounce limit") {
    check_round_trip<TestType>(per_limit + 1, per_limit + 1, header);
  }
  SECTION("large") { check_round_trip<TestType>(per_limit * 20 + 3, per_limit * 20 + 3, header); }
  SECTION("small message, larger receive buffer") { check_round_trip<TestType>(5, 64, header); }
  SECTION("small message, receive buffer past the bounce limit") {
    check_round_trip<TestType>(100, per_limit * 3, header);
  }
  SECTION("large message, larger receive buffer") {
    check_round_trip<TestType>(per_limit * 2, per_limit * 5, header);
  }
  SECTION("zero elements") { check_round_trip<TestType>(0, 0, header); }
  SECTION("zero elements into a buffer") { check_round_trip<TestType>(0, 10, header); }
}

TEST_CASE("piggyback: small contiguous messages bounce, large ones use absolute struct types",
          "[piggyback]") {
  std::vector<int> small(100), large(kBounceLimitBytes / 4 + 1);
  Request r;
  pb::Wire w = pb::prepare_send(r, small.data(), int(small.size()), MPI_INT, pb::make_header(0, false));
  CHECK(w.buf == r.bounce.data());
  CHECK(w.type == MPI_BYTE);  // header and payload as plain bytes: no datatype work in MPICH
  CHECK(w.count == int(4 + small.size() * 4));
  CHECK(r.bounce.size() == 4 + small.size() * 4);
  int32_t in_bounce = 0;
  std::memcpy(&in_bounce, r.bounce.data(), 4);
  CHECK(in_bounce == pb::make_header(0, false));
  pb::release(r);
  CHECK(r.wire == MPI_DATATYPE_NULL);

  w = pb::prepare_send(r, large.data(), int(large.size()), MPI_INT, pb::make_header(1, false));
  CHECK(w.buf == MPI_BOTTOM);
  CHECK(r.bounce.empty());
  int size = 0;
  PMPI_Type_size(w.type, &size);
  CHECK(size == int(4 + large.size() * 4));
  pb::release(r);
  CHECK(r.wire == MPI_DATATYPE_NULL);
}

TEST_CASE("piggyback: a payload from 1 KiB sits in its bounce where the program's buffer does "
          "modulo 64", "[piggyback]") {
  // Copies between addresses 1-31 bytes apart modulo 4096 ran up to 27 times slower here, so
  // the payload follows the program's buffer; smaller ones start the bounce.
  std::vector<char> area(3 * 8192 + 128);
  for (int bytes : {1, 100, 1023, 1024, 4096, kBounceLimitBytes}) {
    for (int offset : {0, 1, 4, 17, 60, 63}) {
      INFO(bytes << " bytes at offset " << offset);
      char *buf = area.data() + offset;
      for (int i = 0; i < bytes; ++i) buf[i] = char(i * 7 + offset);
      Request s, r = receive_request(area.data() + 8192 + offset, bytes, MPI_CHAR);
      const int32_t header = pb::make_header(2, true);
      pb::Wire sw = pb::prepare_send(s, buf, bytes, MPI_CHAR, header);
      pb::Wire rw = pb::prepare_recv(r, area.data() + 8192 + offset, bytes, MPI_CHAR);
      CHECK(sw.count == 4 + bytes);
      CHECK(rw.count == 4 + bytes);
      const auto *payload = static_cast<const char *>(sw.buf) + 4;
      if (bytes < pb::kAlignFrom) {
        CHECK(sw.buf == s.bounce.data());
        CHECK(rw.buf == r.bounce.data());
      } else {
        CHECK((reinterpret_cast<uintptr_t>(payload) - reinterpret_cast<uintptr_t>(buf)) % 64 == 0);
        CHECK((reinterpret_cast<uintptr_t>(rw.buf) + 4 - r.buf) % 64 == 0);
      }
      CHECK(static_cast<const char *>(sw.buf) == s.bounce.data() + s.wire_at);
      CHECK(std::memcmp(payload, buf, size_t(bytes)) == 0);
      int32_t in_wire = 0;
      std::memcpy(&in_wire, sw.buf, 4);
      CHECK(in_wire == header);
      // The receive side: what arrives at rw.buf comes out whole at the program's buffer.
      std::memcpy(const_cast<void *>(rw.buf), sw.buf, size_t(sw.count));
      MPI_Status st{};
      st.count_lo = sw.count;
      int32_t got = 0;
      CHECK(pb::finish_recv(r, st, got) == pb::Arrival::Payload);
      CHECK(got == header);
      CHECK(std::memcmp(reinterpret_cast<const char *>(r.buf), buf, size_t(bytes)) == 0);
      pb::release(s);
      pb::release(r);
    }
  }
}

TEST_CASE("piggyback: a zero-byte message without a header is reported", "[piggyback]") {
  std::vector<int> buf(10, -1);
  Request rr = receive_request(buf.data(), 10, MPI_INT);
  pb::Wire rw = pb::prepare_recv(rr, buf.data(), 10, MPI_INT);
  MPI_Request req;
  REQUIRE(PMPI_Irecv(const_cast<void *>(rw.buf), rw.count, rw.type, 0, 3, MPI_COMM_SELF, &req) ==
          MPI_SUCCESS);
  REQUIRE(PMPI_Send(nullptr, 0, MPI_INT, 0, 3, MPI_COMM_SELF) == MPI_SUCCESS);
  MPI_Status st;
  REQUIRE(PMPI_Wait(&req, &st) == MPI_SUCCESS);
  int32_t header = 12345;
  CHECK(pb::finish_recv(rr, st, header) == pb::Arrival::NoHeader);
  CHECK(header == 12345);
  pb::release(rr);
  CHECK(buf == std::vector<int>(10, -1));
}

TEST_CASE("piggyback: non-contiguous derived types travel with their own struct type",
          "[piggyback]") {
  // Every other int of 2n: a vector type, sent as such, received as n plain ints.
  const int n = 50;
  std::vector<int> strided(2 * n);
  for (int i = 0; i < 2 * n; ++i) strided[size_t(i)] = i % 2 ? -1 : i * 3;
  MPI_Datatype every_other;
  PMPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
  PMPI_Type_commit(&every_other);
  std::vector<int> got(n, 0);
  const int32_t header = pb::make_header(1, true);
  Received r = send_to_self(strided.data(), 1, every_other, header, got.data(), n, MPI_INT);
  REQUIRE(r.had_header);
  CHECK(r.header == header);
  CHECK(count_of(r.status, MPI_INT) == n);
  for (int i = 0; i < n; ++i) REQUIRE(got[size_t(i)] == 2 * i * 3);

  // And received into the same vector type.
  std::vector<int> back(2 * n, -7);
  r = send_to_self(got.data(), n, MPI_INT, header, back.data(), 1, every_other);
  REQUIRE(r.had_header);
  CHECK(count_of(r.status, every_other) == 1);
  for (int i = 0; i < 2 * n; ++i) REQUIRE(back[size_t(i)] == (i % 2 ? -7 : i * 3));
  PMPI_Type_free(&every_other);
}

TEST_CASE("piggyback: release() frees the wire type of a derived-type transfer", "[piggyback]") {
  // MPICH hands out a freed datatype handle again first: the next type created gets it back.
  MPI_Datatype pair;
  PMPI_Type_vector(4, 1, 3, MPI_DOUBLE, &pair);
  PMPI_Type_commit(&pair);
  std::vector<double> buf(12, 1.5);
  Request r;
  pb::prepare_send(r, buf.data(), 1, pair, pb::make_header(0, false));
  REQUIRE(r.wire != MPI_DATATYPE_NULL);
  CHECK_FALSE(r.wire_cached);
  const MPI_Datatype wire = r.wire;
  pb::release(r);
  CHECK(r.wire == MPI_DATATYPE_NULL);
  MPI_Datatype next;
  PMPI_Type_contiguous(2, MPI_INT, &next);
  CHECK(next == wire);
  PMPI_Type_free(&next);

  Request rr;
  pb::prepare_recv(rr, buf.data(), 1, pair);
  const MPI_Datatype rwire = rr.wire;
  CHECK_FALSE(rr.wire_cached);
  pb::release(rr);
  PMPI_Type_contiguous(2, MPI_INT, &next);
  CHECK(next == rwire);
  PMPI_Type_free(&next);
  PMPI_Type_free(&pair);
}

TEST_CASE("piggyback: one large buffer sent twice at once with different headers",
          "[piggyback]") {
  const int n = kBounceLimitBytes;  // ints: absolute types, cached per buffer
  const size_t elems = size_t(n);
  std::vector<int> data = pattern<int>(elems, 5), got1(elems), got2(elems);
  const int32_t h1 = pb::make_header(0, true), h2 = pb::make_header(1, false);
  Request s1, s2, s3, r1 = receive_request(got1.data(), n, MPI_INT),
                      r2 = receive_request(got2.data(), n, MPI_INT);
  pb::Wire w1 = pb::prepare_send(s1, data.data(), n, MPI_INT, h1);
  pb::Wire w2 = pb::prepare_send(s2, data.data(), n, MPI_INT, h2);
  CHECK(s1.wire_cached);
  CHECK_FALSE(s2.wire_cached);  // the cached type's header slot holds h1
  CHECK(s2.wire != s1.wire);
  // A third send with h1 shares the cached type.
  pb::Wire w3 = pb::prepare_send(s3, data.data(), n, MPI_INT, h1);
  CHECK(s3.wire_cached);
  CHECK(s3.wire == s1.wire);
  MPI_Request reqs[3];
  PMPI_Isend(w1.buf, w1.count, w1.type, 0, 1, MPI_COMM_SELF, &reqs[0]);
  PMPI_Isend(w2.buf, w2.count, w2.type, 0, 2, MPI_COMM_SELF, &reqs[1]);
  PMPI_Isend(w3.buf, w3.count, w3.type, 0, 3, MPI_COMM_SELF, &reqs[2]);
  std::vector<int> got3(elems);
  Request r3 = receive_request(got3.data(), n, MPI_INT);
  Request *receivers[3] = {&r1, &r2, &r3};
  const int32_t expected[3] = {h1, h2, h1};
  for (int k = 0; k < 3; ++k) {
    Request &r = *receivers[k];
    pb::Wire rw = pb::prepare_recv(r, reinterpret_cast<void *>(r.buf), n, MPI_INT);
    MPI_Status st;
    REQUIRE(PMPI_Recv(const_cast<void *>(rw.buf), rw.count, rw.type, 0, k + 1, MPI_COMM_SELF, &st) ==
            MPI_SUCCESS);
    int32_t header = 0;
    REQUIRE(pb::finish_recv(r, st, header) == pb::Arrival::Payload);
    CHECK(header == expected[k]);
    CHECK(count_of(st, MPI_INT) == n);
    pb::release(r);
  }
  PMPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
  pb::release(s1);
  pb::release(s2);
  pb::release(s3);
  CHECK(got1 == data);
  CHECK(got2 == data);
  CHECK(got3 == data);
}

TEST_CASE("piggyback: the same buffer sent again carries the new header", "[piggyback]") {
  const int n = kBounceLimitBytes / 8 + 10;
  const size_t elems = size_t(n);
  std::vector<double> data = pattern<double>(elems, 2), got(elems);
  for (uint64_t epoch = 0; epoch < 6; ++epoch) {
    const int32_t header = pb::make_header(epoch, epoch % 2 == 0);
    data[0] = double(epoch);
    Received r = send_to_self(data.data(), n, MPI_DOUBLE, header, got.data(), n, MPI_DOUBLE);
    REQUIRE(r.had_header);
    CHECK(r.header == header);
    CHECK(got == data);
  }
}

TEST_CASE("piggyback: many distinct large buffers (the type cache evicts)", "[piggyback]") {
  // More (buffer, count, type) keys than the cache holds: evicted types must not be in use.
  const int n = kBounceLimitBytes / 4 + 1;
  const int keys = 300;
  const size_t elems = size_t(n + keys);
  std::vector<int> pool(elems), got(elems);
  for (size_t i = 0; i < pool.size(); ++i) pool[i] = int(i);
  for (int k = 0; k < keys; ++k) {
    const int32_t header = pb::make_header(uint64_t(k), k % 3 == 0);
    Received r = send_to_self(&pool[size_t(k)], n, MPI_INT, header, &got[size_t(k)], n, MPI_INT);
    REQUIRE(r.had_header);
    REQUIRE(r.header == header);
    REQUIRE(std::memcmp(&got[size_t(k)], &pool[size_t(k)], size_t(n) * 4) == 0);
  }
}

TEST_CASE("piggyback: fix_probe_status counts the payload only", "[piggyback]") {
  std::vector<char> data = pattern<char>(1000, 1);
  Request sr;
  pb::Wire w = pb::prepare_send(sr, data.data(), 1000, MPI_CHAR, pb::make_header(2, false));
  MPI_Request req;
  PMPI_Isend(w.buf, w.count, w.type, 0, 11, MPI_COMM_SELF, &req);
  MPI_Status st;
  PMPI_Probe(0, 11, MPI_COMM_SELF, &st);
  CHECK(count_of(st, MPI_CHAR) == 1004);
  pb::fix_probe_status(st);
  CHECK(count_of(st, MPI_CHAR) == 1000);
  std::vector<char> got(1000);
  Request rr = receive_request(got.data(), 1000, MPI_CHAR);
  pb::Wire rw = pb::prepare_recv(rr, got.data(), 1000, MPI_CHAR);
  PMPI_Recv(const_cast<void *>(rw.buf), rw.count, rw.type, 0, 11, MPI_COMM_SELF, &st);
  int32_t header = 0;
  CHECK(pb::finish_recv(rr, st, header) == pb::Arrival::Payload);
  CHECK(got == data);
  PMPI_Wait(&req, MPI_STATUS_IGNORE);
  pb::release(sr);
  pb::release(rr);
}

TEST_CASE("piggyback: sizes read from built-in handles agree with MPI_Type_size", "[piggyback]") {
  // The fast paths take a built-in type's size from its handle bits, never asking MPICH.
  const MPI_Datatype builtins[] = {
      MPI_CHAR,          MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE,         MPI_WCHAR,
      MPI_SHORT,         MPI_UNSIGNED_SHORT, MPI_INT,        MPI_UNSIGNED,     MPI_LONG,
      MPI_UNSIGNED_LONG, MPI_LONG_LONG,   MPI_UNSIGNED_LONG_LONG, MPI_FLOAT,   MPI_DOUBLE,
      MPI_LONG_DOUBLE,   MPI_INT8_T,      MPI_INT16_T,       MPI_INT32_T,      MPI_INT64_T,
      MPI_UINT8_T,       MPI_UINT16_T,    MPI_UINT32_T,      MPI_UINT64_T,     MPI_C_BOOL,
      MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_AINT,   MPI_OFFSET,       MPI_COUNT,
      MPI_PACKED,        MPI_FLOAT_INT,   MPI_DOUBLE_INT,    MPI_2INT,         MPI_SHORT_INT};
  for (MPI_Datatype t : builtins) {
    int size = 0;
    PMPI_Type_size(t, &size);
    INFO("datatype handle " << std::hex << t);
    CHECK(pb::payload_bytes(3, t) == 3 * int64_t(size));
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(t, &lb, &extent);
    CHECK(pb::contiguous(t) == (lb == 0 && extent == size));
  }
}
