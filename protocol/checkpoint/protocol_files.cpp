#include "checkpoint/protocol_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>

#include <boost/serialization/deque.hpp>
#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>

#include "store/archived_section.hpp"
#include "io/output_commit.hpp"
#include "store/build_id.hpp"
#include "lifecycle/checkpoint.hpp"
#include "store/ckpt_file.hpp"
#include "support/error.hpp"
#include "support/own_descriptors.hpp"

namespace c3::mpi::files {
namespace {

// Checked before Boost sees the bytes.
constexpr char kLogMagic[8] = {'C', '3', 'M', 'P', 'L', 'O', 'G', '1'};
constexpr char kSnapMagic[8] = {'C', '3', 'M', 'P', 'S', 'N', 'P', '1'};

template <class T>
std::string encode(const T &value, const char (&magic)[8]) {
  return encode_archived(magic, value);
}

template <class T>
T decode(const void *data, size_t size, const char (&magic)[8], const std::string &what) {
  return decode_archived<T>(data, size, magic, what, "a c3 protocol record");
}

std::string seconds(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e9);
  return buf;
}

std::string released_path(const CheckpointDir &dir, int rank) {
  return dir.root() + "/output-released.rank." + std::to_string(rank);
}

}  // namespace

std::string log_path(const CheckpointDir &dir, uint64_t number, int rank) {
  return dir.checkpoint_path(number) + "/rank." + std::to_string(rank) + ".log";
}

std::string stats_line(const CheckpointLog &log) {
  return "late messages " + std::to_string(log.late.size()) + " (" +
         std::to_string(log.late_bytes) + " bytes), early messages " +
         std::to_string(log.early_messages) + ", logged events " +
         std::to_string(log.logged_events());
}

uint64_t write_log(const CheckpointDir &dir, uint64_t number, int rank, int nranks,
                   const CheckpointLog &log) {
  FileHeader header;
  header.build_id = executable_build_id();
  header.rank = uint32_t(rank);
  header.nranks = uint32_t(nranks);
  header.checkpoint = number;
  std::map<std::string, std::string> meta = {
      {"late_messages", std::to_string(log.late.size())},
      {"late_bytes", std::to_string(log.late_bytes)},
      {"early_messages", std::to_string(log.early_messages)},
      {"logged_events", std::to_string(log.logged_events())},
      {"nondet_log_s", seconds(log.nondet_ns)},
      {"recvonly_log_s", seconds(log.recvonly_ns)},
  };
  std::string meta_text = checkpoint::encode_meta(meta);
  std::string payload = encode(log, kLogMagic);
  CheckpointWriter writer(log_path(dir, number, rank), header);
  writer.add_section(SectionKind::Meta, meta_text.data(), meta_text.size());
  writer.add_section(SectionKind::Protocol, payload.data(), payload.size());
  writer.commit();
  return writer.bytes_written();
}

CheckpointLog read_log(const CheckpointDir &dir, uint64_t number, int rank) {
  CheckpointReader reader(log_path(dir, number, rank));
  const SectionView &s = reader.section(SectionKind::Protocol);
  return decode<CheckpointLog>(s.data, s.size, kLogMagic, reader.path() + ": section PROTOCOL");
}

std::string encode_snapshot(const ProtocolState &state) { return encode(state, kSnapMagic); }

ProtocolState decode_snapshot(const void *data, size_t size, const std::string &path) {
  return decode<ProtocolState>(data, size, kSnapMagic, path + ": section PROTOCOL");
}

// Only a process kill must be survived (the output went to the same kernel): no fsync. The file
// stays open and is overwritten in place by one pwrite of two fixed-width numbers, so the record
// before a write to stdout and the one after it are each a single system call (hydra kills the
// other ranks of a failed job with SIGKILL, at any instruction).
void record_shown_output(const CheckpointDir &dir, int rank, uint64_t shown, uint64_t showing) {
  static std::string open_path;
  static int fd = -1;
  const std::string path = released_path(dir, rank);
  if (fd < 0 || open_path != path) {
    if (fd >= 0) close(fd);
    fd = move_to_own_range(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    open_path = path;
    if (fd < 0) return;
  }
  char text[48];
  const int length = std::snprintf(text, sizeof text, "%020llu %020llu\n",
                                   static_cast<unsigned long long>(shown),
                                   static_cast<unsigned long long>(showing));
  if (pwrite(fd, text, size_t(length), 0) != length) {
    close(fd);
    fd = -1;
  }
}

void record_shown_so_far(const CheckpointDir &dir, int rank) {
  record_shown_output(dir, rank, output::shown_bytes(), output::shown_bytes());
}

ShownOutput shown_output(const CheckpointDir &dir, int rank) {
  ShownOutput out;
  FILE *f = std::fopen(released_path(dir, rank).c_str(), "r");
  if (!f) return out;
  unsigned long long shown = 0, showing = 0;
  const int got = std::fscanf(f, "%llu %llu", &shown, &showing);
  std::fclose(f);
  if (got < 1) return out;
  out.shown = shown;
  out.showing = got == 2 && showing > shown ? showing : shown;
  return out;
}

}  // namespace c3::mpi::files
