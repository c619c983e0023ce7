#include "LinkUnit.h"

#include <cstdio>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"

namespace c3pre {
namespace {

constexpr llvm::StringLiteral kMagic = "c3-link-unit 1\n";

void record(std::string &Out, const char *Tag, const std::string &Bytes) {
  Out += std::string(Tag) + " " + std::to_string(Bytes.size()) + "\n" + Bytes + "\n";
}

uint32_t checksum(llvm::StringRef Bytes) {
  return llvm::crc32(llvm::arrayRefFromStringRef(Bytes));
}

std::string hex(uint32_t Value) {
  char Text[9];
  std::snprintf(Text, sizeof Text, "%08x", Value);
  return Text;
}

}  // namespace

std::string encodeLinkUnit(const LinkUnit &Unit) {
  std::string Out(kMagic);
  record(Out, "name", Unit.Name);
  for (const std::string &Arg : Unit.ParseArgs) record(Out, "parse-arg", Arg);
  for (const std::string &Arg : Unit.CompileArgs) record(Out, "compile-arg", Arg);
  record(Out, "summary", Unit.Summary);
  record(Out, "source", Unit.Source);
  Out += "end " + hex(checksum(Out)) + "\n";
  return Out;
}

bool decodeLinkUnit(llvm::StringRef Bytes, LinkUnit &Out, std::string &Error) {
  Out = LinkUnit();
  if (!Bytes.startswith(kMagic)) {
    Error = "not a c3 link unit of this version";
    return false;
  }
  llvm::StringRef Rest = Bytes.drop_front(kMagic.size());
  bool HaveSummary = false, HaveSource = false;
  while (true) {
    size_t LineEnd = Rest.find('\n');
    if (LineEnd == llvm::StringRef::npos) {
      Error = "truncated";
      return false;
    }
    llvm::StringRef Tag, LengthText;
    std::tie(Tag, LengthText) = Rest.substr(0, LineEnd).split(' ');
    if (Tag == "end") {
      const size_t Covered = Bytes.size() - Rest.size();
      if (LengthText != hex(checksum(Bytes.substr(0, Covered))) || Rest.size() != LineEnd + 1) {
        Error = "checksum mismatch";
        return false;
      }
      if (!HaveSummary || !HaveSource) {
        Error = "incomplete";
        return false;
      }
      return true;
    }
    size_t Length = 0;
    if (LengthText.getAsInteger(10, Length) || Rest.size() < LineEnd + 1 + Length + 1 ||
        Rest[LineEnd + 1 + Length] != '\n') {
      Error = "truncated or malformed record";
      return false;
    }
    std::string Value = Rest.substr(LineEnd + 1, Length).str();
    Rest = Rest.drop_front(LineEnd + 1 + Length + 1);
    if (Tag == "name") {
      Out.Name = std::move(Value);
    } else if (Tag == "parse-arg") {
      Out.ParseArgs.push_back(std::move(Value));
    } else if (Tag == "compile-arg") {
      Out.CompileArgs.push_back(std::move(Value));
    } else if (Tag == "summary") {
      Out.Summary = std::move(Value);
      HaveSummary = true;
    } else if (Tag == "source") {
      Out.Source = std::move(Value);
      HaveSource = true;
    } else {
      Error = "unknown record '" + Tag.str() + "'";
      return false;
    }
  }
}

std::string embedUnitDirective(const std::string &UnitPath) {
  // A path the assembler string cannot hold as it is gets no unit: the object stays as compiled.
  if (UnitPath.find_first_of("\"\\\n") != std::string::npos) return std::string();
  const std::string &Quoted = UnitPath;
  return std::string("\n__asm__(\".pushsection .c3.unit,\\\"e\\\",@progbits\\n\"\n") +
         "        \".incbin \\\"" + Quoted + "\\\"\\n\"\n" +
         "        \".popsection\\n\"\n" +
         "        \".pushsection .data.c3.link_guard,\\\"aw\\\",@progbits\\n\"\n" +
         "        \".quad " + kLinkGuardSymbol + "\\n\"\n" +
         "        \".popsection\");\n";
}

}  // namespace c3pre
