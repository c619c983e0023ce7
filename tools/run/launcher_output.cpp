#include "run/launcher_output.hpp"

namespace c3::run {
namespace {

std::string without_newline(const std::string &s) {
  return !s.empty() && s.back() == '\n' ? s.substr(0, s.size() - 1) : s;
}

bool is_rule(const std::string &s) {
  return s.size() >= 20 && s.find_first_not_of('=') == std::string::npos;
}

bool is_last_line_of_block(const std::string &s) {
  return s == "Please see the FAQ page for debugging suggestions";
}

}  // namespace

void LauncherOutputFilter::flush_held(const Sink &to) {
  for (const std::string &h : held_) to(h);
  held_.clear();
}

void LauncherOutputFilter::line(const std::string &text) {
  const std::string s = without_newline(text);
  if (in_block_) {
    launcher_(text);
    // The block is 11 lines; should a hydra version end it otherwise, stop there anyway.
    if (is_last_line_of_block(s) || ++block_lines_ >= 12) in_block_ = false;
    return;
  }
  const bool held_rule = !held_.empty() && is_rule(without_newline(held_.back()));
  if (held_rule && s.rfind("=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", 0) == 0) {
    flush_held(launcher_);
    launcher_(text);
    in_block_ = true;
    block_lines_ = 2;
    return;
  }
  if (is_rule(s)) {
    if (held_rule) flush_held(program_);
    held_.push_back(text);
    return;
  }
  if (s.empty() && !held_rule) {
    held_.push_back(text);
    return;
  }
  flush_held(program_);
  program_(text);
}

void LauncherOutputFilter::finish() { flush_held(program_); }

}  // namespace c3::run
