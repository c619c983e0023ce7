// C3_* environment parsing: defaults, accepted forms, and the exact error text for bad values.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "lifecycle/config.hpp"

using namespace c3;

namespace {
Config parse(const std::map<std::string, std::string> &env) {
  return parse_config([&](const char *name) -> const char * {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::string error_of(const std::map<std::string, std::string> &env) {
  try {
    parse(env);
  } catch (const ConfigError &e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("config: defaults when nothing is set") {
  Config c = parse({});
  CHECK(c.ckpt_dir == "./c3-ckpt");
  CHECK(c.restart == RestartMode::Fresh);
  CHECK(c.interval_ns == 0);
  CHECK(c.keep == 2);
  CHECK(c.stack_size == size_t(256) << 20);
  CHECK(c.heap_size == size_t(64) << 30);
  CHECK_FALSE(c.verbose);
  CHECK(c.fault.stage == FaultStage::None);
}

TEST_CASE("config: empty values count as unset") {
  Config c = parse({{"C3_RESTART", ""}, {"C3_INTERVAL", ""}, {"C3_CKPT_DIR", ""}});
  CHECK(c.restart == RestartMode::Fresh);
  CHECK(c.interval_ns == 0);
  CHECK(c.ckpt_dir == "./c3-ckpt");
}

TEST_CASE("config: C3_RESTART forms") {
  CHECK(parse({{"C3_RESTART", "latest"}}).restart == RestartMode::Latest);
  CHECK(parse({{"C3_RESTART", "auto"}}).restart == RestartMode::Auto);
  Config c = parse({{"C3_RESTART", "17"}});
  CHECK(c.restart == RestartMode::Number);
  CHECK(c.restart_number == 17);
  CHECK(parse({{"C3_RESTART", "0"}}).restart == RestartMode::Number);
  CHECK(error_of({{"C3_RESTART", "newest"}}) ==
        "C3_RESTART='newest': expected 'latest', 'auto' or a checkpoint number");
  CHECK(error_of({{"C3_RESTART", "-1"}}) != "(no error)");
  CHECK(error_of({{"C3_RESTART", "99999999999999999999999"}}) != "(no error)");
}

TEST_CASE("config: C3_INTERVAL is seconds, decimals allowed, > 0") {
  CHECK(parse_interval_ns("C3_INTERVAL", "2") == 2000000000ull);
  CHECK(parse_interval_ns("C3_INTERVAL", "0.5") == 500000000ull);
  CHECK(parse_interval_ns("C3_INTERVAL", ".25") == 250000000ull);
  CHECK(parse_interval_ns("C3_INTERVAL", "3.") == 3000000000ull);
  CHECK(parse_interval_ns("C3_INTERVAL", "0.000000001") == 1);
  CHECK(error_of({{"C3_INTERVAL", "abc"}}) ==
        "C3_INTERVAL='abc': expected a number of seconds > 0");
  for (const char *bad :
       {"0", "0.0", "-1", "1e3", "inf", "nan", ".", "1.2.3", " 1", "1s", "0.0000000001"})
    CHECK_THROWS_AS(parse({{"C3_INTERVAL", bad}}), ConfigError);
}

TEST_CASE("config: sizes with K/M/G suffixes") {
  CHECK(parse_size("X", "4096") == 4096);
  CHECK(parse_size("X", "64K") == 64u << 10);
  CHECK(parse_size("X", "64k") == 64u << 10);
  CHECK(parse_size("X", "256M") == size_t(256) << 20);
  CHECK(parse_size("X", "2G") == size_t(2) << 30);
  for (const char *bad : {"", "M", "12X", "1.5G", "-1M", "1MB", "99999999999999999999"})
    CHECK_THROWS_AS(parse_size("X", bad), ConfigError);
  CHECK(error_of({{"C3_STACK_SIZE", "lots"}}) ==
        "C3_STACK_SIZE='lots': expected a size in bytes with an optional K, M or G suffix "
        "(e.g. 256M)");
  Config c = parse({{"C3_STACK_SIZE", "1M"}, {"C3_HEAP_SIZE", "1G"}});
  CHECK(c.stack_size == size_t(1) << 20);
  CHECK(c.heap_size == size_t(1) << 30);
  // Rounded up to whole pages.
  CHECK(parse({{"C3_STACK_SIZE", "65537"}}).stack_size == 69632);
}

TEST_CASE("config: sizes must leave room for the other range") {
  CHECK(error_of({{"C3_STACK_SIZE", "1K"}}) == "C3_STACK_SIZE='1K': expected at least 64K");
  CHECK(error_of({{"C3_HEAP_SIZE", "4K"}}) == "C3_HEAP_SIZE='4K': expected at least 1M");
  // 16 TiB lie between the heap base and the stack top: 16384G cannot fit with any stack.
  CHECK(error_of({{"C3_HEAP_SIZE", "16384G"}}).find("exceed") != std::string::npos);
  CHECK_NOTHROW(parse({{"C3_HEAP_SIZE", "8192G"}}));
}

TEST_CASE("config: C3_KEEP and C3_VERBOSE") {
  CHECK(parse({{"C3_KEEP", "1"}}).keep == 1);
  CHECK(parse({{"C3_KEEP", "10"}}).keep == 10);
  CHECK(error_of({{"C3_KEEP", "0"}}) == "C3_KEEP='0': expected an integer >= 1");
  CHECK_THROWS_AS(parse({{"C3_KEEP", "two"}}), ConfigError);
  CHECK(parse({{"C3_VERBOSE", "1"}}).verbose);
  CHECK_FALSE(parse({{"C3_VERBOSE", "0"}}).verbose);
  CHECK(error_of({{"C3_VERBOSE", "yes"}}) == "C3_VERBOSE='yes': expected 0 or 1");
}

TEST_CASE("config: C3_FAULT stages") {
  Config c = parse({{"C3_FAULT", "after-commit:2"}});
  CHECK(c.fault.stage == FaultStage::AfterCommit);
  CHECK(c.fault.n == 2);
  CHECK(parse({{"C3_FAULT", "mid-write:3"}}).fault.stage == FaultStage::MidWrite);
  CHECK(parse({{"C3_FAULT", "before-commit:1"}}).fault.stage == FaultStage::BeforeCommit);
  Config s = parse({{"C3_FAULT", "site:40"}});
  CHECK(s.fault.stage == FaultStage::Site);
  CHECK(s.fault.n == 40);
  for (const char *bad : {"after-commit", "after-commit:", "after-commit:0", "after-commit:x",
                          "crash:1", "site:-1", "mid-write:3:4"})
    CHECK_THROWS_AS(parse({{"C3_FAULT", bad}}), ConfigError);
  CHECK(error_of({{"C3_FAULT", "boom"}}) ==
        "C3_FAULT='boom': expected STAGE:N or STAGE:N@RANK, STAGE one of after-commit, mid-write, "
        "before-commit, before-release, mid-release, nondet-log, recvonly-log, after-local-commit, site (N >= 1)");
  Config r = parse({{"C3_FAULT", "nondet-log:2@3"}});
  CHECK(r.fault.stage == FaultStage::NonDetLog);
  CHECK(r.fault.n == 2);
  CHECK(r.fault.rank == 3);
  CHECK(parse({{"C3_FAULT", "site:5"}}).fault.rank == -1);
  for (const char *bad : {"site:5@", "site:5@x", "site:@1", "recvonly-log:1@-1"})
    CHECK_THROWS_AS(parse({{"C3_FAULT", bad}}), ConfigError);
}
