// What a link input file is, and the contents of one section of an ELF relocatable object:
// enough to find the c3 link units (.c3.unit) that c3cc -c put in its objects.
#pragma once

#include <optional>
#include <string>

namespace c3cc {

enum class InputKind {
  NotAFile,   // a directory, or nothing there (an option's value, a missing file)
  Object,     // ELF relocatable object
  Other,      // an archive, a shared object, a linker script: other code the link pulls in
};

InputKind classify_link_input(const std::string &path);

// The bytes of the named section of an ELF64 relocatable object; nullopt if the file is not
// one or has no such section (or a malformed section table).
std::optional<std::string> read_object_section(const std::string &path, const std::string &name);

}  // namespace c3cc
