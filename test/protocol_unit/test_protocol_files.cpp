// The protocol's files: the per-checkpoint log (the local commit), the state snapshot inside the
// checkpoint file, and the released-output record. Damaged bytes must be refused, never decoded.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <random>

#include "lifecycle/checkpoint.hpp"
#include "store/ckpt_dir.hpp"
#include "store/ckpt_file.hpp"
#include "ckpt_test_tmpdir.hpp"
#include "support/error.hpp"
#include "checkpoint/protocol_files.hpp"

namespace files = c3::mpi::files;
using c3::CheckpointDir;
using c3::CorruptCheckpoint;
using namespace c3::mpi;

namespace {

std::string binary_payload(size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = char((i * 131 + seed) % 7 == 0 ? 0 : (i * 37 + seed) & 0xff);
  return s;
}

LateMessage late(uint64_t comm, int source, int tag, std::string payload) {
  LateMessage m;
  m.comm = comm;
  m.source = source;
  m.tag = tag;
  m.payload = std::move(payload);
  return m;
}

CheckpointLog sample_log(size_t big_payload) {
  CheckpointLog log;
  log.late.push_back(late(MPI_COMM_WORLD, 1, 5, std::string("\0\x01\xff bin\0ary\0", 12)));
  log.late.push_back(late(int(0x84000002), 0, 0, ""));
  log.late.push_back(late(MPI_COMM_WORLD, 3, 32767, binary_payload(big_payload, 3)));
  for (const auto &m : log.late) log.late_bytes += m.payload.size();
  Outcome hit, misses;
  hit.call = 3;
  hit.flag = 1;
  hit.indices = {0, 2, 5};
  hit.source = 1;
  hit.tag = 9;
  hit.bytes = 40;
  misses.call = 4;
  misses.repeat = 17;
  log.outcomes = {hit, misses};
  log.resolutions[5] = Resolution{1, 9};
  log.resolutions[8] = Resolution{0, 3};
  log.cancelled[6] = 1;
  log.cancelled[7] = 0;
  log.probe_matches[44] = ProbeMatch{12, 3, MPI_ANY_SOURCE, 11, 2, 11};
  log.calls_logged_until = 21;
  log.early_messages = 4;
  log.nondet_ns = 1500000000;
  log.recvonly_ns = 250000000;
  return log;
}

void require_same(const CheckpointLog &a, const CheckpointLog &b) {
  REQUIRE(a.late.size() == b.late.size());
  for (size_t i = 0; i < a.late.size(); ++i) {
    CHECK(a.late[i].comm == b.late[i].comm);
    CHECK(a.late[i].source == b.late[i].source);
    CHECK(a.late[i].tag == b.late[i].tag);
    CHECK(a.late[i].payload == b.late[i].payload);
  }
  REQUIRE(a.outcomes.size() == b.outcomes.size());
  for (size_t i = 0; i < a.outcomes.size(); ++i) {
    const Outcome &x = a.outcomes[i], &y = b.outcomes[i];
    CHECK(x.call == y.call);
    CHECK(x.repeat == y.repeat);
    CHECK(x.flag == y.flag);
    CHECK(x.indices == y.indices);
    CHECK(x.source == y.source);
    CHECK(x.tag == y.tag);
    CHECK(x.bytes == y.bytes);
  }
  REQUIRE(a.resolutions.size() == b.resolutions.size());
  for (const auto &[posting, res] : a.resolutions) {
    REQUIRE(b.resolutions.count(posting));
    CHECK(b.resolutions.at(posting).source == res.source);
    CHECK(b.resolutions.at(posting).tag == res.tag);
  }
  CHECK(a.cancelled == b.cancelled);
  REQUIRE(a.probe_matches.size() == b.probe_matches.size());
  for (const auto &[call, m] : a.probe_matches) {
    REQUIRE(b.probe_matches.count(call));
    const ProbeMatch &n = b.probe_matches.at(call);
    CHECK(n.posting == m.posting);
    CHECK(n.comm == m.comm);
    CHECK(n.wanted_source == m.wanted_source);
    CHECK(n.wanted_tag == m.wanted_tag);
    CHECK(n.source == m.source);
    CHECK(n.tag == m.tag);
  }
  CHECK(a.calls_logged_until == b.calls_logged_until);
  CHECK(a.late_bytes == b.late_bytes);
  CHECK(a.early_messages == b.early_messages);
  CHECK(a.nondet_ns == b.nondet_ns);
  CHECK(a.recvonly_ns == b.recvonly_ns);
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  REQUIRE(out.good());
}

// Changes one byte in place: the damage loops touch a file thousands of times, and rewriting it
// whole (truncate, new blocks) is slow on some file systems.
void put_byte(const std::string &path, size_t pos, char value) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(pwrite(fd, &value, 1, off_t(pos)) == 1);
  close(fd);
}

// "corrupt", "accepted" or the other exception's text, so a failed check shows what happened.
std::string log_verdict(const CheckpointDir &dir, uint64_t number, int rank) {
  try {
    files::read_log(dir, number, rank);
    return "accepted";
  } catch (const CorruptCheckpoint &) {
    return "corrupt";
  } catch (const std::exception &e) {
    return std::string("other exception: ") + e.what();
  }
}

ProtocolState sample_state() {
  ProtocolState s;
  s.epoch = 6;
  s.number_base = 11;
  s.mode = Mode::NonDetLog;
  s.next_posting = 77;
  s.next_call = 1234;
  s.sent = {1, 0, 5};
  for (int c = 0; c < 4; ++c) s.received[c] = {uint64_t(c), uint64_t(c) * 10, 3};
  s.expected_late = {0, 2, 9};
  s.initiated = {1, 0, 1};
  s.ahead = {-1, 4, -1};
  s.early[Signature{1, kWorldGid, 5}] = 2;
  s.early[Signature{2, 0x84000003fedcba98ull, -7}] = 1;
  s.was_early[Signature{0, kWorldGid, 0}] = 3;
  Request send, recv, freed;
  send.kind = Request::Kind::Send;
  send.send_mode = SendMode::Sync;
  send.persistent = true;
  send.active = true;
  send.buf = 0x7f0012345678u;
  send.count = 100;
  send.type = MPI_DOUBLE;
  send.peer = 2;
  send.tag = 42;
  send.comm = MPI_COMM_WORLD;
  recv.kind = Request::Kind::Recv;
  recv.done = true;
  recv.active = true;
  recv.replay_cancel = true;
  recv.buf = 0x1000;
  recv.count = 3;
  recv.type = MPI_INT;
  recv.peer = MPI_ANY_SOURCE;
  recv.tag = MPI_ANY_TAG;
  recv.comm = int(0x84000003);
  recv.posting = 76;
  recv.cancel_asked = true;  // asked before the checkpoint: the restart asks again
  for (size_t i = 0; i < std::size(recv.status.words); ++i) recv.status.words[i] = int(i) * 100 - 1;
  // Live MPI state is never saved.
  recv.real = MPI_Request(int(0xac000003u));
  recv.bounce.assign("live", 4);
  recv.header = 0x5c300001;
  recv.wire = MPI_INT;
  recv.wire_cached = true;
  recv.effective_source = 9;
  s.requests = {send, recv, freed};
  s.log.outcomes.resize(3);
  s.pool.push_back(late(1, 2, 3, "x"));
  s.replay.calls_logged_until = 99;
  s.replay_next_outcome = 5;
  s.bsend_user_buffer = 0x5555;
  s.bsend_user_size = 4096;
  s.output_released_at_snapshot = 10;
  s.output_at_snapshot = 20;
  s.output_releasable = 15;
  s.locally_committed = 16;
  s.globally_committed = 15;
  s.failed_epoch = 4;
  return s;
}

void require_same_request(const Request &a, const Request &b) {
  CHECK(a.kind == b.kind);
  CHECK(a.send_mode == b.send_mode);
  CHECK(a.persistent == b.persistent);
  CHECK(a.active == b.active);
  CHECK(a.done == b.done);
  CHECK(a.replay_cancel == b.replay_cancel);
  CHECK(a.buf == b.buf);
  CHECK(a.count == b.count);
  CHECK(a.type == b.type);
  CHECK(a.peer == b.peer);
  CHECK(a.tag == b.tag);
  CHECK(a.comm == b.comm);
  CHECK(a.posting == b.posting);
  CHECK(a.cancel_asked == b.cancel_asked);
  CHECK(std::equal(std::begin(a.status.words), std::end(a.status.words), std::begin(b.status.words)));
}

bool same_registry(const std::map<Signature, uint64_t> &a, const std::map<Signature, uint64_t> &b) {
  if (a.size() != b.size()) return false;
  for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y)
    if (x->first < y->first || y->first < x->first || x->second != y->second) return false;
  return true;
}

std::string snapshot_outcome(const std::string &bytes) {
  try {
    files::decode_snapshot(bytes.data(), bytes.size(), "snap");
    return "accepted";
  } catch (const CorruptCheckpoint &) {
    return "corrupt";
  } catch (const std::exception &e) {
    return std::string("other exception: ") + e.what();
  }
}

}  // namespace

TEST_CASE("protocol files: write_log/read_log round trip", "[files]") {
  c3::test::TmpDir tmp;
  CheckpointDir dir(tmp.path());
  dir.ensure_exists();
  dir.prepare(7, true);
  const CheckpointLog log = sample_log(70000);
  const uint64_t size = files::write_log(dir, 7, 1, 3, log);
  CHECK(files::log_path(dir, 7, 1) == dir.checkpoint_path(7) + "/rank.1.log");
  CHECK(size == read_file(files::log_path(dir, 7, 1)).size());
  require_same(files::read_log(dir, 7, 1), log);

  SECTION("the file header and META section describe it") {
    c3::CheckpointReader reader(files::log_path(dir, 7, 1));
    CHECK(reader.header().rank == 1);
    CHECK(reader.header().nranks == 3);
    CHECK(reader.header().checkpoint == 7);
    const c3::SectionView &meta = reader.section(c3::SectionKind::Meta);
    auto fields = c3::checkpoint::decode_meta(
        std::string(reinterpret_cast<const char *>(meta.data), meta.size));
    CHECK(fields["late_messages"] == "3");
    CHECK(fields["late_bytes"] == std::to_string(log.late_bytes));
    CHECK(fields["early_messages"] == "4");
    CHECK(fields["logged_events"] == "7");  // outcomes, resolutions, cancels, probe matches
    CHECK(fields["nondet_log_s"] == "1.500");
    CHECK(fields["recvonly_log_s"] == "0.250");
  }
  SECTION("an empty log") {
    files::write_log(dir, 7, 2, 3, CheckpointLog{});
    require_same(files::read_log(dir, 7, 2), CheckpointLog{});
  }
  SECTION("another rank's or checkpoint's log is not there") {
    CHECK_THROWS_AS(files::read_log(dir, 7, 0), c3::Error);
    CHECK_THROWS_AS(files::read_log(dir, 8, 1), c3::Error);
    try {
      files::read_log(dir, 7, 0);
    } catch (const CorruptCheckpoint &) {
      FAIL("a missing log is not a damaged one");
    } catch (const c3::Error &) {
    }
  }
  SECTION("writing into a checkpoint folder that does not exist fails") {
    CHECK_THROWS_AS(files::write_log(dir, 9, 0, 1, log), c3::Error);
  }
}

TEST_CASE("protocol files: stats_line", "[files]") {
  CHECK(files::stats_line(CheckpointLog{}) ==
        "late messages 0 (0 bytes), early messages 0, logged events 0");
  const CheckpointLog log = sample_log(1000);
  CHECK(files::stats_line(log) == "late messages 3 (1012 bytes), early messages 4, logged events 7");
}

TEST_CASE("protocol files: every damaged byte of a log is refused", "[files]") {
  c3::test::TmpDir tmp;
  CheckpointDir dir(tmp.path());
  dir.ensure_exists();
  dir.prepare(3, true);
  files::write_log(dir, 3, 0, 2, sample_log(300));
  const std::string path = files::log_path(dir, 3, 0);
  const std::string good = read_file(path);
  REQUIRE(good.size() > 500);
  size_t refused = 0, tried = 0;
  for (size_t pos = 0; pos < good.size(); ++pos) {
    // Every byte inverted; every 7th also with single low and high bits flipped.
    for (unsigned char flip : {0xffu, 0x01u, 0x80u}) {
      if (flip != 0xff && pos % 7 != 0) continue;
      put_byte(path, pos, char(good[pos] ^ flip));
      const std::string verdict = log_verdict(dir, 3, 0);
      ++tried;
      if (verdict == "corrupt") {
        ++refused;
      } else {
        INFO("byte " << pos << " ^ " << unsigned(flip));
        CHECK(verdict == "corrupt");
      }
    }
    put_byte(path, pos, good[pos]);
  }
  CHECK(refused == tried);
  REQUIRE(read_file(path) == good);
  require_same(files::read_log(dir, 3, 0), sample_log(300));
}

TEST_CASE("protocol files: a log truncated at any length is refused", "[files]") {
  c3::test::TmpDir tmp;
  CheckpointDir dir(tmp.path());
  dir.ensure_exists();
  dir.prepare(4, true);
  files::write_log(dir, 4, 1, 2, sample_log(200));
  const std::string path = files::log_path(dir, 4, 1);
  const std::string good = read_file(path);
  // Bytes appended after the END record are damage too.
  write_file(path, good + std::string(8, '\0'));
  CHECK(log_verdict(dir, 4, 1) == "corrupt");
  write_file(path, good);
  size_t refused = 0;
  for (size_t length = good.size(); length-- > 0;) {  // shrinking only: no new blocks
    REQUIRE(truncate(path.c_str(), off_t(length)) == 0);
    const std::string verdict = log_verdict(dir, 4, 1);
    if (verdict == "corrupt") {
      ++refused;
    } else {
      INFO("length " << length << " of " << good.size());
      CHECK(verdict == "corrupt");
    }
  }
  CHECK(refused == good.size());
}

namespace {

// A checksummed file at the log's place whose PROTOCOL section holds `payload`.
void write_protocol_section(const CheckpointDir &dir, uint64_t number, const std::string &payload) {
  c3::FileHeader header;
  header.checkpoint = number;
  c3::CheckpointWriter writer(files::log_path(dir, number, 0), header);
  writer.add_section(c3::SectionKind::Protocol, payload.data(), payload.size());
  writer.commit();
}

// The log's magic and a late-message count no vector can hold (see protocol-unit-bugs.md).
// Boost's binary layout: class information of the log and of its vector (5 bytes each), the
// count (8 bytes), the element version (4 bytes).
std::string log_with_absurd_length() {
  std::string bytes = "C3MPLOG1" + std::string(10, '\0');
  const uint64_t count = ~uint64_t(0) >> 2;
  bytes.append(reinterpret_cast<const char *>(&count), sizeof count);
  return bytes + std::string(4 + 64, '\0');
}

}  // namespace

TEST_CASE("protocol files: a checksummed file whose PROTOCOL section is not a log", "[files]") {
  c3::test::TmpDir tmp;
  CheckpointDir dir(tmp.path());
  dir.ensure_exists();
  dir.prepare(5, true);
  SECTION("a state snapshot") {
    write_protocol_section(dir, 5, files::encode_snapshot(sample_state()));
    CHECK(log_verdict(dir, 5, 0) == "corrupt");
  }
  SECTION("the log magic followed by a truncated log") {
    const CheckpointLog log = sample_log(10);
    c3::test::TmpDir other;
    CheckpointDir source(other.path());
    source.ensure_exists();
    source.prepare(1, true);
    files::write_log(source, 1, 0, 1, log);
    c3::CheckpointReader reader(files::log_path(source, 1, 0));
    const c3::SectionView &v = reader.section(c3::SectionKind::Protocol);
    const std::string payload(reinterpret_cast<const char *>(v.data), v.size);
    for (size_t cut : {size_t(8), size_t(9), payload.size() / 2, payload.size() - 1}) {
      INFO("cut at " << cut);
      write_protocol_section(dir, 5, payload.substr(0, cut));
      CHECK(log_verdict(dir, 5, 0) == "corrupt");
    }
    write_protocol_section(dir, 5, payload);
    CHECK(log_verdict(dir, 5, 0) == "accepted");
  }
  SECTION("empty") {
    write_protocol_section(dir, 5, "");
    CHECK(log_verdict(dir, 5, 0) == "corrupt");
  }
  SECTION("no PROTOCOL section at all") {
    c3::FileHeader header;
    c3::CheckpointWriter writer(files::log_path(dir, 5, 0), header);
    writer.add_section(c3::SectionKind::Meta, "a=b\n", 4);
    writer.commit();
    CHECK(log_verdict(dir, 5, 0) == "corrupt");
  }
}

// A length no vector can have is damage too, refused before anything is allocated.
TEST_CASE("protocol files: a log section with an absurd length is refused as damaged",
          "[files]") {
  c3::test::TmpDir tmp;
  CheckpointDir dir(tmp.path());
  dir.ensure_exists();
  dir.prepare(5, true);
  write_protocol_section(dir, 5, log_with_absurd_length());
  CHECK(log_verdict(dir, 5, 0) == "corrupt");
}

TEST_CASE("protocol files: encode_snapshot/decode_snapshot round trip", "[files]") {
  const ProtocolState s = sample_state();
  const std::string bytes = files::encode_snapshot(s);
  ProtocolState d = files::decode_snapshot(bytes.data(), bytes.size(), "test");
  CHECK(d.epoch == s.epoch);
  CHECK(d.number_base == s.number_base);
  CHECK(d.mode == s.mode);
  CHECK(d.next_posting == s.next_posting);
  CHECK(d.next_call == s.next_call);
  CHECK(d.sent == s.sent);
  for (int c = 0; c < 4; ++c) CHECK(d.received[c] == s.received[c]);
  CHECK(d.expected_late == s.expected_late);
  CHECK(d.initiated == s.initiated);
  CHECK(d.ahead == s.ahead);
  CHECK(same_registry(d.early, s.early));
  CHECK(same_registry(d.was_early, s.was_early));
  REQUIRE(d.requests.size() == s.requests.size());
  for (size_t i = 0; i < s.requests.size(); ++i) require_same_request(d.requests[i], s.requests[i]);
  CHECK(d.bsend_user_buffer == s.bsend_user_buffer);
  CHECK(d.bsend_user_size == s.bsend_user_size);
  CHECK(d.output_released_at_snapshot == s.output_released_at_snapshot);
  CHECK(d.output_at_snapshot == s.output_at_snapshot);
  CHECK(d.locally_committed == s.locally_committed);
  CHECK(d.globally_committed == s.globally_committed);
  CHECK(d.failed_epoch == s.failed_epoch);

  // Not part of a snapshot: the log in progress, the replay, live MPI objects.
  CHECK(d.log.outcomes.empty());
  CHECK(d.pool.empty());
  CHECK(d.replay.calls_logged_until == 0);
  CHECK(d.replay_next_outcome == 0);
  const Request &recv = d.requests[1];
  CHECK(recv.real == MPI_REQUEST_NULL);
  CHECK(recv.bounce.empty());
  CHECK(recv.header == 0);
  CHECK(recv.wire == MPI_DATATYPE_NULL);
  CHECK_FALSE(recv.wire_cached);
  CHECK(recv.effective_source == 0);

  // Deterministic: the same state encodes to the same bytes.
  CHECK(files::encode_snapshot(d) == files::encode_snapshot(files::decode_snapshot(
                                         bytes.data(), bytes.size(), "test")));
  const std::string empty = files::encode_snapshot(ProtocolState{});
  ProtocolState e = files::decode_snapshot(empty.data(), empty.size(), "test");
  CHECK(e.requests.empty());
  CHECK(e.mode == Mode::Run);
}

TEST_CASE("protocol files: decode_snapshot refuses what is not a snapshot", "[files]") {
  const std::string good = files::encode_snapshot(sample_state());
  CHECK(snapshot_outcome(good) == "accepted");
  CHECK(snapshot_outcome("") == "corrupt");
  CHECK(snapshot_outcome("C3MPSNP") == "corrupt");
  CHECK(snapshot_outcome("C3MPSNP1") == "corrupt");
  CHECK(snapshot_outcome("C3MPSNP2" + good.substr(8)) == "corrupt");
  CHECK(snapshot_outcome("C3MPLOG1" + good.substr(8)) == "corrupt");
  try {
    files::decode_snapshot("nonsense", 8, "/some/file");
    FAIL("accepted");
  } catch (const CorruptCheckpoint &e) {
    CHECK_THAT(e.what(), Catch::Contains("/some/file"));
  }
  SECTION("truncated at any length") {
    for (size_t length = 0; length < good.size(); ++length) {
      INFO("length " << length << " of " << good.size());
      REQUIRE(snapshot_outcome(good.substr(0, length)) == "corrupt");
    }
  }
  SECTION("damaged bytes of a counter decode to another value") {
    // No checksum at this level (the file section has one): damage to a fixed-size field reads
    // back as another value of that field and nothing else.
    ProtocolState s = sample_state();
    s.next_call = 0x0102030405060708u;
    const std::string bytes = files::encode_snapshot(s);
    const std::string marker(reinterpret_cast<const char *>(&s.next_call), 8);
    const size_t at = bytes.find(marker);
    REQUIRE(at != std::string::npos);
    for (size_t pos = at; pos < at + 8; ++pos) {
      std::string bad = bytes;
      bad[pos] = char(bad[pos] ^ 0xff);
      INFO("byte " << pos);
      REQUIRE(snapshot_outcome(bad) == "accepted");
      ProtocolState d = files::decode_snapshot(bad.data(), bad.size(), "test");
      CHECK(d.next_call == (s.next_call ^ (uint64_t(0xff) << (8 * (pos - at)))));
      CHECK(d.epoch == s.epoch);
      CHECK(d.requests.size() == s.requests.size());
    }
  }
}

// Random bytes after the magic mostly read as absurd vector lengths: refused as damage.
TEST_CASE("protocol files: decode_snapshot refuses random bytes after the magic",
          "[files]") {
  std::mt19937 rng(12345);
  int other = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string bytes = "C3MPSNP1";
    const size_t n = size_t(rng() % 160);
    for (size_t i = 0; i < n; ++i) bytes += char(rng() & 0xff);
    const std::string outcome = snapshot_outcome(bytes);
    if (outcome != "corrupt") {
      ++other;
      if (other <= 3) {  // a few examples, not 300 lines
        INFO("trial " << trial << ", " << n << " random bytes");
        CHECK(outcome == "corrupt");
      }
    }
  }
  CHECK(other == 0);
}

// Damage to a length field used to make Boost allocate and zero what the length said, up to
// gigabytes and ~10 s per decode (the two-rank unit run once timed out on it): lengths beyond
// the bytes left are refused now (bounded_archive.hpp).
TEST_CASE("protocol files: any damaged snapshot byte is refused or decoded, quickly",
          "[files]") {
  const std::string good = files::encode_snapshot(sample_state());
  for (size_t pos = 0; pos < good.size(); ++pos) {
    for (unsigned char flip : {0xffu, 0x01u, 0x40u}) {
      std::string bad = good;
      bad[pos] = char(bad[pos] ^ flip);
      const auto start = std::chrono::steady_clock::now();
      const std::string outcome = snapshot_outcome(bad);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      INFO("byte " << pos << " ^ " << unsigned(flip) << ": " << seconds << " s");
      CHECK((outcome == "corrupt" || outcome == "accepted"));
      CHECK(seconds < 0.05);
    }
  }
}

TEST_CASE("protocol files: shown output record", "[files]") {
  c3::test::TmpDir tmp;
  CheckpointDir dir(tmp.path());
  auto shown = [&](int rank) { return files::shown_output(dir, rank).shown; };
  auto showing = [&](int rank) { return files::shown_output(dir, rank).showing; };
  CHECK(shown(0) == 0);
  CHECK(showing(0) == 0);
  files::record_shown_output(dir, 0, 12345, 12345);
  files::record_shown_output(dir, 1, 0, 0);
  CHECK(shown(0) == 12345);
  CHECK(showing(0) == 12345);
  CHECK(shown(1) == 0);
  CHECK(shown(2) == 0);
  files::record_shown_output(dir, 0, 7, 7);  // replaced, not appended
  CHECK(shown(0) == 7);
  CHECK(showing(0) == 7);
  files::record_shown_output(dir, 0, ~uint64_t(0), ~uint64_t(0));
  CHECK(shown(0) == ~uint64_t(0));
  CHECK_FALSE(std::ifstream(tmp / "output-released.rank.0.tmp").good());

  SECTION("a write in flight: shown for certain, and up to where it may have been") {
    files::record_shown_output(dir, 0, 100, 160);
    CHECK(shown(0) == 100);
    CHECK(showing(0) == 160);
    files::record_shown_output(dir, 0, 160, 160);  // the write ended
    CHECK(shown(0) == 160);
    CHECK(showing(0) == 160);
  }
  SECTION("one number (an older record) is shown for certain") {
    write_file(tmp / "output-released.rank.3", "00000000000000000042\n");
    CHECK(shown(3) == 42);
    CHECK(showing(3) == 42);
  }
  SECTION("a second number below the first is no write in flight") {
    write_file(tmp / "output-released.rank.3", "00000000000000000042 00000000000000000010\n");
    CHECK(shown(3) == 42);
    CHECK(showing(3) == 42);
  }
  SECTION("unreadable content counts as nothing shown") {
    write_file(tmp / "output-released.rank.3", "garbage\n");
    CHECK(shown(3) == 0);
    CHECK(showing(3) == 0);
    write_file(tmp / "output-released.rank.3", "");
    CHECK(shown(3) == 0);
  }
  SECTION("a directory that does not exist: nothing recorded, no exception") {
    CheckpointDir missing(tmp / "missing");
    CHECK_NOTHROW(files::record_shown_output(missing, 0, 99, 99));
    CHECK(files::shown_output(missing, 0).shown == 0);
  }
}
