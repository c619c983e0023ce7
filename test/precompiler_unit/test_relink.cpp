// Summaries as text, and the link step's decision of which units to instrument again.
#include <catch2/catch.hpp>

#include "Relink.h"

using c3pre::FileSummary;
using c3pre::parseSummary;
using c3pre::ReachInfo;
using c3pre::serializeSummary;
using c3pre::unitsToInstrumentAgain;

namespace {

FileSummary::Function function(const std::string &Key, std::set<std::string> Callees,
                               bool HasSite = false, bool Indirect = false) {
  FileSummary::Function F;
  F.Key = Key;
  F.Callees = std::move(Callees);
  F.HasSite = HasSite;
  F.CallsIndirectly = Indirect;
  return F;
}

// A summary as c3cc -c writes it for file Index: callees not defined in the file are external.
FileSummary file(std::vector<FileSummary::Function> Functions, std::set<std::string> AddressTaken = {}) {
  FileSummary S;
  S.Functions = std::move(Functions);
  S.AddressTaken = std::move(AddressTaken);
  std::set<std::string> Defined;
  for (const auto &F : S.Functions) Defined.insert(F.Key);
  for (const auto &F : S.Functions)
    for (const auto &Callee : F.Callees)
      if (!Defined.count(Callee)) S.ExternalCallees.insert(Callee);
  return S;
}

std::vector<bool> again(const std::vector<FileSummary> &Units, bool WholeProgram = true) {
  return unitsToInstrumentAgain(Units, ReachInfo(Units, WholeProgram));
}

}  // namespace

TEST_CASE("a summary reads back as written, static keys under the reading file's index",
          "[summary]") {
  FileSummary S = file({function("main", {"3:helper", "kernel"}, true),
                        function("3:helper", {}, false, true)},
                       {"3:helper"});
  S.Functions[0].WrappedCallees = {"3:helper", "*"};
  const std::string Text = serializeSummary(S, 3);
  CHECK(Text.find("3:") == std::string::npos);
  FileSummary Back;
  REQUIRE(parseSummary(Text, 7, Back));
  REQUIRE(Back.Functions.size() == 2);
  CHECK(Back.Functions[0].Key == "main");
  CHECK(Back.Functions[0].HasSite);
  CHECK(Back.Functions[0].Callees == std::set<std::string>{"7:helper", "kernel"});
  CHECK(Back.Functions[0].WrappedCallees == std::set<std::string>{"7:helper", "*"});
  CHECK(Back.Functions[1].Key == "7:helper");
  CHECK(Back.Functions[1].CallsIndirectly);
  CHECK(Back.AddressTaken == std::set<std::string>{"7:helper"});
  CHECK(Back.ExternalCallees == std::set<std::string>{"kernel"});
}

TEST_CASE("malformed summaries are refused", "[summary]") {
  FileSummary Out;
  for (const char *Text : {"function f 01\n", "function f 0x0\n", "calls g\n", "function\n",
                           "external a b\n", "external\n", "tail-calls f\n"}) {
    INFO(Text);
    CHECK_FALSE(parseSummary(Text, 0, Out));
  }
}

TEST_CASE("a kernel that calls only non-reaching functions of other files is instrumented again",
          "[relink]") {
  // main (pragma) -> kernel (file 1) -> zero (file 2): compiled alone, file 1 had to assume
  // that zero may reach a checkpoint. main stays instrumented: its extra call site for kernel
  // is left alone.
  std::vector<FileSummary> Units = {file({function("main", {"kernel"}, true)}),
                                    file({function("kernel", {"zero"})}),
                                    file({function("zero", {})})};
  CHECK(again(Units) == std::vector<bool>{false, true, false});
}

TEST_CASE("a unit whose guess was right is left alone", "[relink]") {
  // kernel really reaches the pragma in leaf, in a third file.
  std::vector<FileSummary> Units = {file({function("main", {"kernel"})}),
                                    file({function("kernel", {"leaf"})}),
                                    file({function("leaf", {}, true)})};
  CHECK(again(Units) == std::vector<bool>{false, false, false});
}

TEST_CASE("a function of code outside the units still counts as reaching", "[relink]") {
  std::vector<FileSummary> Units = {file({function("main", {"kernel"}, true)}),
                                    file({function("kernel", {"from_library"})})};
  CHECK(again(Units) == std::vector<bool>{false, false});
}

TEST_CASE("indirect calls reach only with other code linked in, or a reaching target",
          "[relink]") {
  // kernel calls through a pointer; the only address taken is of a function that cannot reach.
  std::vector<FileSummary> Units = {file({function("main", {"kernel"}, true)}, {"square"}),
                                    file({function("kernel", {}, false, true)}),
                                    file({function("square", {})})};
  CHECK(again(Units, true) == std::vector<bool>{false, true, false});
  CHECK(again(Units, false) == std::vector<bool>{false, false, false});
  // The address of a function defined in no unit: it may reach.
  Units[0] = file({function("main", {"kernel"}, true)}, {"from_library"});
  CHECK(again(Units, true) == std::vector<bool>{false, false, false});
}

TEST_CASE("a function left uninstrumented alone that does reach a checkpoint is precompiled again",
          "[relink]") {
  // kernel holds a construct c3 cannot re-enter: alone, it reaches only by assumption and is
  // left uninstrumented; the whole program shows that it reaches leaf's pragma.
  std::vector<FileSummary> Units = {file({function("main", {"kernel"}, true)}),
                                    file({function("kernel", {"leaf"})}),
                                    file({function("leaf", {}, true)})};
  Units[1].Functions[0].Unsupported = true;
  CHECK(again(Units) == std::vector<bool>{false, true, false});
}
