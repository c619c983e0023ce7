// The application's writable globals and statics, described by generated __c3_global records in
// ELF section "c3_globals".
#pragma once
#include <cstddef>
#include <vector>

#include "c3/c3_abi.h"
#include "store/memory_image.hpp"

namespace c3::globals {

// Registered globals, sorted by address, duplicates removed.
std::vector<__c3_global> registered();

// Whether [p, p+n) lies inside one registered global (the table is read once, on the first call).
bool within_one(const void *p, size_t n);

// Adds every registered global to a GLOBALS image.
void add_to_image(MemoryImageBuilder &image);

// Checks that the saved globals are exactly the registered ones (address and size). Throws
// c3::Error naming the first difference.
void validate_saved(const std::vector<MemoryPiece> &saved);
// Copies the saved bytes back (call validate_saved first).
void restore(const std::vector<MemoryPiece> &saved);

}  // namespace c3::globals
