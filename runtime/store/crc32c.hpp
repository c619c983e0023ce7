// CRC32C (Castagnoli): hardware instruction when the CPU has SSE4.2, table fallback otherwise.
#pragma once
#include <cstddef>
#include <cstdint>

namespace c3 {
// Extends `crc` (start with 0) over [data, data+len).
uint32_t crc32c(uint32_t crc, const void *data, size_t len);

// The two implementations behind crc32c(), exposed so tests can check they agree. Same contract
// as crc32c(); crc32c_hardware() must only be called when crc32c_hardware_available().
namespace detail {
uint32_t crc32c_software(uint32_t crc, const void *data, size_t len);
uint32_t crc32c_hardware(uint32_t crc, const void *data, size_t len);
bool crc32c_hardware_available();
}  // namespace detail
}  // namespace c3
