// The link unit's record format, in the manner of LevelDB's log tests: every truncation and
// every single-byte change of an encoded unit must be refused, never read as another unit.
#include <catch2/catch.hpp>

#include "LinkUnit.h"

using c3pre::decodeLinkUnit;
using c3pre::encodeLinkUnit;
using c3pre::LinkUnit;

namespace {

LinkUnit sample() {
  LinkUnit Unit;
  Unit.Name = "force.c";
  Unit.ParseArgs = {"-std=gnu11"};
  Unit.CompileArgs = {"-O2", "-g", "-DNAME=\"x y\"", ""};
  Unit.Summary = "function md_forces 000\ncalls md_zero\nexternal md_zero\n";
  Unit.Source = std::string("int f(void) { return 1; }\n\0binary\n", 35);
  return Unit;
}

}  // namespace

TEST_CASE("a link unit reads back as written", "[link-unit]") {
  const LinkUnit In = sample();
  LinkUnit Out;
  std::string Error;
  REQUIRE(decodeLinkUnit(encodeLinkUnit(In), Out, Error));
  CHECK(Out.Name == In.Name);
  CHECK(Out.ParseArgs == In.ParseArgs);
  CHECK(Out.CompileArgs == In.CompileArgs);
  CHECK(Out.Summary == In.Summary);
  CHECK(Out.Source == In.Source);
}

TEST_CASE("an empty unit reads back too", "[link-unit]") {
  LinkUnit Out;
  std::string Error;
  REQUIRE(decodeLinkUnit(encodeLinkUnit(LinkUnit()), Out, Error));
  CHECK(Out.Source.empty());
  CHECK(Out.CompileArgs.empty());
}

TEST_CASE("every truncation of a unit is refused", "[link-unit]") {
  const std::string Bytes = encodeLinkUnit(sample());
  for (size_t Length = 0; Length < Bytes.size(); ++Length) {
    LinkUnit Out;
    std::string Error;
    INFO("length " << Length);
    CHECK_FALSE(decodeLinkUnit(Bytes.substr(0, Length), Out, Error));
    CHECK_FALSE(Error.empty());
  }
}

TEST_CASE("every changed byte of a unit is refused", "[link-unit]") {
  const std::string Bytes = encodeLinkUnit(sample());
  for (size_t I = 0; I < Bytes.size(); ++I) {
    for (unsigned char Flip : {0x01, 0x20, 0x80}) {
      std::string Damaged = Bytes;
      Damaged[I] = char(Damaged[I] ^ Flip);
      LinkUnit Out;
      std::string Error;
      INFO("byte " << I << " xor " << unsigned(Flip));
      CHECK_FALSE(decodeLinkUnit(Damaged, Out, Error));
    }
  }
}

TEST_CASE("bytes after the end of a unit are refused", "[link-unit]") {
  LinkUnit Out;
  std::string Error;
  CHECK_FALSE(decodeLinkUnit(encodeLinkUnit(sample()) + "x", Out, Error));
}

TEST_CASE("the embedding directive names the unit file, or is empty for an odd path",
          "[link-unit]") {
  const std::string Directive = c3pre::embedUnitDirective("/tmp/c3cc-ab12/force.c3.i.unit");
  CHECK(Directive.find(".incbin \\\"/tmp/c3cc-ab12/force.c3.i.unit\\\"") != std::string::npos);
  CHECK(Directive.find(".c3.unit,\\\"e\\\"") != std::string::npos);
  CHECK(Directive.find(c3pre::kLinkGuardSymbol) != std::string::npos);
  CHECK(c3pre::embedUnitDirective("/tmp/we\"ird").empty());
  CHECK(c3pre::embedUnitDirective("/tmp/back\\slash").empty());
}
