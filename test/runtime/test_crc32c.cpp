#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "store/crc32c.hpp"

using c3::crc32c;
using c3::detail::crc32c_hardware;
using c3::detail::crc32c_hardware_available;
using c3::detail::crc32c_software;

namespace {

using CrcFunction = uint32_t (*)(uint32_t, const void *, size_t);

std::vector<std::pair<const char *, CrcFunction>> implementations() {
  std::vector<std::pair<const char *, CrcFunction>> out{{"dispatch", &crc32c},
                                                        {"software", &crc32c_software}};
  if (crc32c_hardware_available()) out.push_back({"hardware", &crc32c_hardware});
  return out;
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto &b : out) b = uint8_t(rng());
  return out;
}

}  // namespace

TEST_CASE("crc32c matches published check values", "[crc32c]") {
  // The CRC catalogue's check value and the test vectors of RFC 3720 (iSCSI), appendix B.4.
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xff), ascending(32), descending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = uint8_t(i);
    descending[i] = uint8_t(31 - i);
  }
  const uint8_t iscsi_read[48] = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
                                  0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  for (const auto &[name, crc] : implementations()) {
    INFO(name);
    CHECK(crc(0, "123456789", 9) == 0xE3069283u);
    CHECK(crc(0, "", 0) == 0u);
    CHECK(crc(0, zeros.data(), 32) == 0x8A9136AAu);
    CHECK(crc(0, ones.data(), 32) == 0x62A8AB43u);
    CHECK(crc(0, ascending.data(), 32) == 0x46DD794Eu);
    CHECK(crc(0, descending.data(), 32) == 0x113FDB5Cu);
    CHECK(crc(0, iscsi_read, sizeof iscsi_read) == 0xD9963A56u);
  }
}

TEST_CASE("crc32c can be extended piece by piece", "[crc32c]") {
  const auto data = random_bytes(50000, 1);
  for (const auto &[name, crc] : implementations()) {
    INFO(name);
    const uint32_t whole = crc(0, data.data(), data.size());
    for (size_t split : {size_t(0), size_t(1), size_t(7), size_t(770), size_t(4095), size_t(12288),
                         size_t(12289), size_t(49999), data.size()}) {
      INFO("split at " << split);
      const uint32_t head = crc(0, data.data(), split);
      CHECK(crc(head, data.data() + split, data.size() - split) == whole);
    }
  }
}

TEST_CASE("hardware and software crc32c agree on every length and alignment", "[crc32c]") {
  if (!crc32c_hardware_available()) {
    WARN("CPU has no SSE4.2: only the software CRC32C is tested");
    return;
  }
  const auto data = random_bytes(200000, 2);
  // Short lengths exhaustively, then around the 3 x {256, 1024, 4096}-byte interleaving
  // boundaries and their combinations.
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (size_t base :
       {768, 1024, 1536, 3072, 3840, 4096, 12288, 12288 + 3072 + 768, 24576, 100000})
    for (size_t delta = 0; delta <= 16; ++delta) {
      lengths.push_back(base + delta);
      lengths.push_back(base - delta);
    }
  lengths.push_back(data.size() - 8);
  for (size_t misalign = 0; misalign < 8; ++misalign)
    for (size_t n : lengths) {
      const uint8_t *p = data.data() + misalign;
      const uint32_t seed = uint32_t(n * 2654435761u);
      if (crc32c_hardware(seed, p, n) != crc32c_software(seed, p, n))
        FAIL("mismatch at length " << n << ", misalignment " << misalign);
    }
  SUCCEED();
}

TEST_CASE("crc32c sees single-bit changes", "[crc32c]") {
  auto data = random_bytes(3 * 4096 * 2 + 5, 3);
  const uint32_t original = crc32c(0, data.data(), data.size());
  for (size_t i = 0; i < data.size(); i += 97) {
    data[i] ^= uint8_t(1u << (i % 8));
    REQUIRE(crc32c(0, data.data(), data.size()) != original);
    data[i] ^= uint8_t(1u << (i % 8));
  }
}
