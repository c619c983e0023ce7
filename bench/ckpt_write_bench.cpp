// How close does the checkpoint writer come to raw disk speed?
//
//   ckpt_write_bench [DIR] [MIB] [ROUNDS]      (defaults: . 1024 3)
//
// Each round writes MIB MiB to DIR three ways, each ending with fsync: plain write() of 1 MiB
// blocks (what `dd bs=1M conv=fsync` does), CheckpointWriter with the data as one piece, and
// CheckpointWriter with the data as 4 KiB pieces (a heap of many small blocks). It also times
// CheckpointReader verifying the one-piece file (mostly from the page cache), and in-memory
// CRC32C throughput. Results are printed per round and as medians.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "store/ckpt_file.hpp"
#include "store/crc32c.hpp"
#include "support/error.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void die(const std::string &what) {
  std::perror(what.c_str());
  std::exit(1);
}

double raw_write(const std::string &path, const std::vector<uint8_t> &data) {
  ::sync();
  const auto start = Clock::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) die("open " + path);
  const size_t block = size_t(1) << 20;
  for (size_t off = 0; off < data.size(); off += block) {
    const size_t n = std::min(block, data.size() - off);
    if (::write(fd, data.data() + off, n) != ssize_t(n)) die("write " + path);
  }
  if (::fsync(fd) != 0) die("fsync " + path);
  ::close(fd);
  const double t = seconds_since(start);
  ::unlink(path.c_str());
  return t;
}

double c3_write(const std::string &path, const std::vector<uint8_t> &data, size_t piece_size) {
  std::vector<iovec> pieces;
  for (size_t off = 0; off < data.size(); off += piece_size)
    pieces.push_back({const_cast<uint8_t *>(data.data()) + off,
                      std::min(piece_size, data.size() - off)});
  ::sync();
  const auto start = Clock::now();
  c3::FileHeader header;
  header.build_id = "bench-build-id-0123";
  c3::CheckpointWriter writer(path, header);
  writer.add_section(c3::SectionKind::Meta, "bench", 5);
  writer.add_section(c3::SectionKind::Heap, pieces);
  writer.commit();
  return seconds_since(start);
}

double c3_read(const std::string &path, size_t expected) {
  double t = 0;
  {
    const auto start = Clock::now();
    c3::CheckpointReader reader(path);
    if (reader.section(c3::SectionKind::Heap).size != expected) die("bad section size");
    t = seconds_since(start);
  }
  ::unlink(path.c_str());
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const size_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1024;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  const size_t bytes = mib << 20;
  const std::string path = dir + "/c3_bench.c3";

  // Non-zero, touched data: page faults on the source are not part of what we measure.
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; i += 8) {
    const uint64_t v = i * 0x9e3779b97f4a7c15ull;
    std::memcpy(&data[i], &v, std::min<size_t>(8, bytes - i));
  }

  const auto crc_start = Clock::now();
  volatile uint32_t sink = c3::crc32c(0, data.data(), data.size());
  (void)sink;
  const double crc_s = seconds_since(crc_start);
  std::printf("crc32c (%s): %.0f MiB/s in memory\n",
              c3::detail::crc32c_hardware_available() ? "sse4.2" : "software", mib / crc_s);
  const auto small_start = Clock::now();
  uint32_t crc = 0;
  for (size_t off = 0; off < bytes; off += 4096)
    crc = c3::crc32c(crc, data.data() + off, std::min<size_t>(4096, bytes - off));
  sink = crc;
  std::printf("crc32c over 4 KiB pieces: %.0f MiB/s in memory\n", mib / seconds_since(small_start));

  std::map<std::string, std::vector<double>> results;
  const char *const names[] = {"raw write()+fsync, 1 MiB blocks", "CheckpointWriter, 1 piece",
                               "CheckpointWriter, 4 KiB pieces", "CheckpointReader (verify)"};
  try {
    for (int round = 0; round < rounds; ++round) {
      double t[4];
      t[0] = raw_write(path, data);
      t[1] = c3_write(path, data, bytes);
      t[3] = c3_read(path, bytes);  // removes the file, so every write starts from scratch
      t[2] = c3_write(path, data, 4096);
      ::unlink(path.c_str());
      std::printf("round %d:", round + 1);
      for (int k = 0; k < 4; ++k) {
        results[names[k]].push_back(mib / t[k]);
        std::printf("  %.0f", mib / t[k]);
      }
      std::printf(" MiB/s\n");
    }
  } catch (const c3::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    ::unlink(path.c_str());
    return 1;
  }
  std::printf("median of %d rounds, %zu MiB to %s:\n", rounds, mib, dir.c_str());
  for (const char *name : names) std::printf("  %-34s %6.0f MiB/s\n", name, median(results[name]));
  return 0;
}
