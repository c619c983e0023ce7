#include "lifecycle/config.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "memory/heap_arena.hpp"

namespace c3 {
namespace {

// The stack's top is fixed at 0x600000000000 and the heap starts at heap::kDefaultBase; both
// must fit between those two addresses, one guard page included.
constexpr uint64_t kStackTop = 0x600000000000ull;
constexpr uint64_t kPage = 4096;
constexpr size_t kMinStack = size_t(64) << 10;
constexpr size_t kMinHeap = size_t(1) << 20;

[[noreturn]] void fail(const char *name, const std::string &value, const std::string &expected) {
  throw ConfigError(std::string(name) + "='" + value + "': " + expected);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Parses all of `text` as a decimal integer; false on anything else or overflow.
bool parse_u64(const std::string &text, uint64_t &out) {
  if (text.empty()) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (!is_digit(c)) return false;
    uint64_t d = uint64_t(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

}  // namespace

uint64_t parse_interval_ns(const char *name, const std::string &value) {
  const char *expected = "expected a number of seconds > 0";
  // Fixed-point by hand: no locale, no exponents, no "inf".
  size_t dot = value.find('.');
  std::string whole = value.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : value.substr(dot + 1);
  if (whole.empty() && frac.empty()) fail(name, value, expected);
  for (char c : whole)
    if (!is_digit(c)) fail(name, value, expected);
  for (char c : frac)
    if (!is_digit(c)) fail(name, value, expected);
  uint64_t seconds = 0;
  if (!whole.empty() && !parse_u64(whole, seconds)) fail(name, value, expected);
  // Ten years is far beyond any useful interval and keeps the nanoseconds well inside 64 bits.
  if (seconds > 315360000ull)
    fail(name, value, "expected a number of seconds > 0 (at most 315360000)");
  uint64_t ns = 0;
  for (size_t i = 0; i < 9; ++i) ns = ns * 10 + (i < frac.size() ? uint64_t(frac[i] - '0') : 0);
  uint64_t total = seconds * 1000000000ull + ns;
  if (total == 0) fail(name, value, expected);
  return total;
}

size_t parse_size(const char *name, const std::string &value) {
  const char *expected = "expected a size in bytes with an optional K, M or G suffix (e.g. 256M)";
  std::string digits = value;
  unsigned shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
      case 'k':
        shift = 10;
        break;
      case 'M':
      case 'm':
        shift = 20;
        break;
      case 'G':
      case 'g':
        shift = 30;
        break;
      default:
        break;
    }
    if (shift) digits.pop_back();
  }
  uint64_t n = 0;
  if (!parse_u64(digits, n)) fail(name, value, expected);
  if (n > (std::numeric_limits<uint64_t>::max() >> shift)) fail(name, value, "size too large");
  return size_t(n << shift);
}

unsigned parse_keep(const char *name, const std::string &value) {
  uint64_t n = 0;
  if (!parse_u64(value, n) || n < 1 || n > 1000000) fail(name, value, "expected an integer >= 1");
  return unsigned(n);
}

bool parse_flag(const char *name, const std::string &value) {
  if (value == "0") return false;
  if (value == "1") return true;
  fail(name, value, "expected 0 or 1");
}

output::Mode parse_output(const char *name, const std::string &value) {
  if (value == "auto") return output::Mode::Auto;
  if (value == "commit") return output::Mode::Commit;
  if (value == "immediate") return output::Mode::Immediate;
  fail(name, value, "expected auto, commit or immediate");
}

void parse_restart(const char *name, const std::string &value, RestartMode &mode,
                   uint64_t &number) {
  if (value.empty()) {
    mode = RestartMode::Fresh;
  } else if (value == "latest") {
    mode = RestartMode::Latest;
  } else if (value == "auto") {
    mode = RestartMode::Auto;
  } else if (parse_u64(value, number)) {
    mode = RestartMode::Number;
  } else {
    fail(name, value, "expected 'latest', 'auto' or a checkpoint number");
  }
}

Config parse_config(const EnvLookup &lookup) {
  Config cfg;
  auto get = [&](const char *name, std::string &out) {
    const char *v = lookup(name);
    if (!v || !*v) return false;
    out = v;
    return true;
  };
  std::string v;
  if (get("C3_CKPT_DIR", v)) cfg.ckpt_dir = v;
  if (get("C3_RESTART", v)) parse_restart("C3_RESTART", v, cfg.restart, cfg.restart_number);
  if (get("C3_INTERVAL", v)) cfg.interval_ns = parse_interval_ns("C3_INTERVAL", v);
  if (get("C3_KEEP", v)) cfg.keep = parse_keep("C3_KEEP", v);
  if (get("C3_STACK_SIZE", v)) {
    cfg.stack_size = parse_size("C3_STACK_SIZE", v);
    if (cfg.stack_size < kMinStack) fail("C3_STACK_SIZE", v, "expected at least 64K");
  }
  if (get("C3_HEAP_SIZE", v)) {
    cfg.heap_size = parse_size("C3_HEAP_SIZE", v);
    if (cfg.heap_size < kMinHeap) fail("C3_HEAP_SIZE", v, "expected at least 1M");
  }
  if (get("C3_VERBOSE", v)) cfg.verbose = parse_flag("C3_VERBOSE", v);
  if (get("C3_OUTPUT", v)) cfg.output = parse_output("C3_OUTPUT", v);
  if (get("C3_FAULT", v)) cfg.fault = parse_fault("C3_FAULT", v);
  if (get("C3_RUN_DIR", v)) cfg.run_dir = v;

  // Whole pages, and heap + guard page + stack must fit below the stack's fixed top.
  cfg.stack_size = (cfg.stack_size + kPage - 1) / kPage * kPage;
  cfg.heap_size = (cfg.heap_size + kPage - 1) / kPage * kPage;
  const uint64_t room = kStackTop - heap::kDefaultBase - kPage;
  if (cfg.heap_size > room || cfg.stack_size > room - cfg.heap_size) {
    throw ConfigError("C3_HEAP_SIZE (" + std::to_string(cfg.heap_size >> 20) +
                      " MiB) plus C3_STACK_SIZE (" + std::to_string(cfg.stack_size >> 20) +
                      " MiB) exceed the " + std::to_string(room >> 30) +
                      " GiB between the heap and stack addresses");
  }
  return cfg;
}

namespace {
Config g_config;
}  // namespace

const Config &load_config_or_exit() {
  try {
    g_config = parse_config([](const char *name) { return std::getenv(name); });
  } catch (const ConfigError &e) {
    std::fprintf(stderr, "c3: error: %s\n", e.what());
    std::exit(2);
  }
  return g_config;
}

const Config &config() {
  // Unit tests and tools use the defaults without loading the environment.
  return g_config;
}

}  // namespace c3
