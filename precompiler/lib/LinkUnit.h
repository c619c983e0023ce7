// A file's link unit: what the link step needs to instrument a file compiled alone again once
// the whole program is known, as LTO objects carry IR. c3cc -c embeds it in the object (section
// .c3.unit, excluded from the executable); c3cc reads it back when it links.
//
// Format: the line "c3-link-unit 1", then records "<tag> <length>\n<bytes>\n" (tags: name,
// parse-arg, compile-arg, summary, source), then "end <crc32 of everything before, hex>\n".
#pragma once
#include <string>
#include <vector>

#include "llvm/ADT/StringRef.h"

namespace c3pre {

struct LinkUnit {
  std::string Name;                      // the source, for messages
  std::vector<std::string> ParseArgs;    // c3-precompile's clang arguments (-std=...)
  std::vector<std::string> CompileArgs;  // the compile of the precompiled text (-O2 -g ...)
  std::string Summary;                   // serializeSummary()
  std::string Source;                    // the preprocessed text c3-precompile started from
};

std::string encodeLinkUnit(const LinkUnit &Unit);

// False, with the reason, for anything that is not a whole, intact unit of this version.
bool decodeLinkUnit(llvm::StringRef Bytes, LinkUnit &Out, std::string &Error);

// Top-level asm, appended to a precompiled file, that puts the unit file into the object's
// .c3.unit section (SHF_EXCLUDE: the linker leaves it out of the executable) and makes the
// object need a symbol only c3's runtime defines, so that a link by plain mpicc or cc fails
// with a message that says why. Empty for a path with '"', '\\' or a newline.
std::string embedUnitDirective(const std::string &UnitPath);

// The symbol of that guard.
constexpr const char *kLinkGuardSymbol = "__c3_objects_compiled_by_c3cc_must_be_linked_by_c3cc";

}  // namespace c3pre
