// c3cc: compiles C (and C/MPI) programs with checkpoint/restart support. It takes mpicc's flags
// and runs, per source: clang -E, c3-precompile, clang -c; then, once the objects' link units
// have shown which of them to instrument again (link_units.hpp), links -no-pie with the c3
// runtime, the PMPI protocol layer and MPICH. See docs/architecture.md.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "driver_config.hpp"
#include "link_units.hpp"
#include "pipeline.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "toolchain.hpp"

namespace c3cc {
namespace {

void print_help() {
  std::printf(
      "Usage: c3cc [options] file...\n"
      "Compiles and links C programs with c3 checkpoint/restart support; a drop-in for mpicc\n"
      "(CC=c3cc make, cmake -DCMAKE_C_COMPILER=c3cc). Mark checkpoint locations with\n"
      "#pragma ccc_checkpoint (or '#pragma ccc_checkpoint force').\n"
      "\n"
      "Options are those of mpicc/clang, among them:\n"
      "  -c / -S / -E         compile only / emit assembly / preprocess only\n"
      "  -o <file>            output file\n"
      "  -O<n> -g -W... -f... -m... -std=...   code generation and warnings\n"
      "  -I -D -U -include -M... -Wp,...     preprocessor and dependency files\n"
      "  -L -l -Wl,...        linking (always -no-pie; -shared is not supported)\n"
      "  -show                print the commands without running them\n"
      "  -v                   print each command as it runs\n"
      "  --version, --help\n"
      "\n"
      "Environment: C3CC_CLANG (clang to use, default clang-14), C3CC_KEEP_TEMPS=1 (keep the\n"
      "intermediate files and print where).\n");
}

std::string first_line(const std::string &text) { return text.substr(0, text.find('\n')); }

void print_version(const Toolchain &tools) {
  std::printf("c3cc (c3) %s\n", config::kVersion);
  std::printf("%s\n", first_line(capture_output({tools.clang, "--version"})).c_str());
}

void copy_stdin_to(const std::string &path) {
  std::ofstream out(path, std::ios::binary);
  out << std::cin.rdbuf();
  if (!out) throw UsageError("cannot write standard input to " + path);
}

bool runs_in_precompiler(const Step &step) {
  return step.kind == StepKind::Preprocess || step.kind == StepKind::Check ||
         step.kind == StepKind::Precompile || step.kind == StepKind::Compile;
}

// Steps [begin, end) as one command: c3-precompile --run-steps runs them in order in its own
// process, clang's commands included (it links Clang): starting clang costs more than its work
// on most files, and the steps of one source would start it twice.
Command batch_command(const Plan &plan, std::size_t begin, std::size_t end, const Toolchain &tools,
                      const std::string &temp_dir) {
  std::string list;
  for (std::size_t i = begin; i < end; ++i) {
    const Command &command = plan.steps[i].command;
    list += std::to_string(command.size()) + '\0';
    for (const std::string &arg : command) list += arg + '\0';
  }
  const std::string path = temp_dir + "/steps";
  write_file(path, list);
  return {tools.precompiler, "--run-steps", path};
}

// Runs the steps in order. Returns c3cc's exit status: that of the first failing step.
int run_plan(Plan plan, bool verbose, const Toolchain &tools, const std::string &temp_dir) {
  if (!plan.stdin_copy.empty()) copy_stdin_to(plan.stdin_copy);
  for (const std::string &input : plan.unused_linker_inputs)
    std::fprintf(stderr, "c3cc: warning: %s: linker input unused because linking is not done\n",
                 input.c_str());
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &step = plan.steps[i];
    if (step.kind == StepKind::InstrumentAtLink) {
      Command &link = plan.steps.at(i + 1).command;
      const int status = instrument_at_link(step.command, link, tools, temp_dir, verbose);
      if (signal_received()) return 1;
      if (status != 0) return status;
      continue;
    }
    Command command = step.command;
    // With -v each command is printed, and runs, on its own.
    if (!verbose && runs_in_precompiler(step) && !temp_dir.empty()) {
      std::size_t end = i;
      bool precompiles = false;
      for (; end < plan.steps.size() && runs_in_precompiler(plan.steps[end]); ++end)
        precompiles = precompiles || plan.steps[end].kind == StepKind::Precompile;
      if (precompiles) {
        command = batch_command(plan, i, end, tools, temp_dir);
        i = end - 1;
      }
    }
    const int status = run_step(command, verbose);
    if (signal_received()) return 1;  // interrupted: c3cc dies of that signal after cleaning up
    if (status != 0) return status;
  }
  return 0;
}

int print_plan(const Plan &plan) {
  if (!plan.stdin_copy.empty()) std::printf("cat > %s\n", plan.stdin_copy.c_str());
  for (const Step &step : plan.steps) {
    if (step.kind == StepKind::InstrumentAtLink)
      std::printf("# c3cc: reads the c3 link units of the objects among: %s\n",
                  format_command(step.command).c_str());
    else
      std::printf("%s\n", format_command(step.command).c_str());
  }
  return 0;
}

int drive(const std::vector<std::string> &args) {
  const Invocation inv = parse_command_line(args);
  const Toolchain tools = find_toolchain();
  if (inv.help) {
    print_help();
    return 0;
  }
  if (inv.version) {
    print_version(tools);
    return 0;
  }
  if (inv.verbose) std::fprintf(stderr, "c3cc (c3) %s\n", config::kVersion);

  const bool has_inputs = !inv.sources.empty() || inv.has_linker_objects;
  if (inv.stage == Stage::Preprocess || (!has_inputs && (inv.query || inv.verbose))) {
    const Plan plan = plan_pass_through(inv, tools);
    return inv.show ? print_plan(plan) : run_plan(plan, inv.verbose, tools, std::string());
  }
  if (!has_inputs) throw UsageError("no input files");

  if (inv.show) return print_plan(plan_pipeline(inv, tools, TempDir::placeholder()));
  // Planned once for the checks, which must fail before any temporary file exists.
  for (const Step &step : plan_pipeline(inv, tools, TempDir::placeholder()).steps) {
    if (step.kind == StepKind::Precompile) tools.require_precompiler();
    if (step.kind == StepKind::Link) tools.require_runtime();
  }
  TempDir temp_dir;
  return run_plan(plan_pipeline(inv, tools, temp_dir.path()), inv.verbose, tools, temp_dir.path());
}

}  // namespace
}  // namespace c3cc

int main(int argc, char **argv) {
  c3cc::install_signal_forwarding();
  int status = 1;
  try {
    status = c3cc::drive(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception &error) {
    std::fprintf(stderr, "c3cc: error: %s\n", error.what());
  }
  // Temporary files are gone by now; a Ctrl-C ends c3cc the way it ended the child.
  c3cc::die_of_pending_signal();
  return status;
}
