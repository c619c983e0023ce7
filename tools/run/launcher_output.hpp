// The launcher's own report in the job's stdout: hydra's mpiexec prints a "BAD TERMINATION"
// block there when a process dies. `c3 run` sends exactly that block to stderr, so stdout over
// all attempts is the program's output alone. Lines are routed as they come; only a blank line
// and a rule line are held until the next line shows whether a block begins.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace c3::run {

class LauncherOutputFilter {
 public:
  using Sink = std::function<void(const std::string &line)>;  // a line with its '\n'
  LauncherOutputFilter(Sink program, Sink launcher) : program_(program), launcher_(launcher) {}

  void line(const std::string &text);  // one line, '\n' included (the last one may lack it)
  void finish();                       // end of the stream: lines still held are the program's

 private:
  void flush_held(const Sink &to);
  Sink program_, launcher_;
  std::vector<std::string> held_;  // blank lines and a rule that may open a block
  bool in_block_ = false;
  int block_lines_ = 0;
};

}  // namespace c3::run
