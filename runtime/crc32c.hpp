// CRC32C (Castagnoli): hardware instruction when the CPU has SSE4.2, table fallback otherwise.
#pragma once
#include <cstddef>
#include <cstdint>

namespace c3 {
// Extends `crc` (start with 0) over [data, data+len).
uint32_t crc32c(uint32_t crc, const void *data, size_t len);
}  // namespace c3
