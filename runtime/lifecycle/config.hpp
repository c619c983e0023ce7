// Run-time settings, read once from the environment (C3_*) before the application starts.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "support/error.hpp"
#include "lifecycle/fault_injection.hpp"
#include "io/output_commit.hpp"

namespace c3 {

// A C3_* variable with a value c3 cannot use. what() is the whole user-facing text after
// "c3: error: ", e.g. "C3_KEEP='0': expected an integer >= 1".
class ConfigError : public Error {
 public:
  using Error::Error;
};

enum class RestartMode {
  Fresh,   // C3_RESTART unset or empty
  Latest,  // newest committed checkpoint; an error if there is none
  Auto,    // newest committed checkpoint if there is one, else a fresh run
  Number,  // exactly checkpoint `restart_number`
};

struct Config {
  std::string ckpt_dir = "./c3-ckpt";
  RestartMode restart = RestartMode::Fresh;
  uint64_t restart_number = 0;
  uint64_t interval_ns = 0;  // 0: only forced pragmas take checkpoints
  unsigned keep = 2;
  size_t stack_size = size_t(256) << 20;
  size_t heap_size = size_t(64) << 30;
  bool verbose = false;
  output::Mode output = output::Mode::Auto;  // C3_OUTPUT
  FaultPlan fault;
  std::string run_dir;  // C3_RUN_DIR, set by `c3 run`: where this process says it started and exited
};

// Looks a variable up; nullptr when unset. Tests pass a map, the runtime passes getenv.
using EnvLookup = std::function<const char *(const char *name)>;

// Parsers for single values. `name` is only used in the error message. Each throws ConfigError.
uint64_t parse_interval_ns(const char *name, const std::string &value);
size_t parse_size(const char *name, const std::string &value);
unsigned parse_keep(const char *name, const std::string &value);
bool parse_flag(const char *name, const std::string &value);
output::Mode parse_output(const char *name, const std::string &value);
void parse_restart(const char *name, const std::string &value, RestartMode &mode, uint64_t &number);

// All settings; unset and empty variables keep their defaults. Throws ConfigError.
Config parse_config(const EnvLookup &lookup);

// The process-wide settings. load_config_or_exit() reads the environment; on a bad value it
// prints one "c3: error: ..." line and exits with status 2.
const Config &load_config_or_exit();
const Config &config();

}  // namespace c3
