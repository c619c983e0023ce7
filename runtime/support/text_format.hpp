// How the runtime and the c3 tool print addresses and sizes.
#pragma once
#include <cstdint>
#include <string>

namespace c3 {

std::string hex(uintptr_t value);           // 0x500000000000
std::string human_bytes(uint64_t bytes);    // 812 B, 12.4 MiB

}  // namespace c3
