// Identity of the running executable: its GNU build-id, so a checkpoint is never restored into a
// different program.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace c3 {

// Raw build-id bytes of the main executable (cached). Falls back to a hash of /proc/self/exe
// (prefixed "exe:") when the executable has no NT_GNU_BUILD_ID note.
const std::string &executable_build_id();

// Searches one PT_NOTE segment's bytes for an NT_GNU_BUILD_ID note; `align` is the segment's
// note alignment (4 or 8).
std::optional<std::string> find_gnu_build_id(const uint8_t *notes, size_t size, size_t align);

// Content hash used by the fallback: 16 bytes from two independent 64-bit FNV-1a variants.
std::string content_hash(const uint8_t *data, size_t size);

// "ab12cd..." (lower-case hex of every byte).
std::string to_hex(const std::string &bytes);

}  // namespace c3
