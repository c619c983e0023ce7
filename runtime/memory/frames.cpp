#include "memory/frames.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "support/text_format.hpp"
#include "memory/fixed_stack.hpp"

// The variables generated code reads and writes at every instrumented function entry.
extern "C" {
struct __c3_frame *__c3_top = nullptr;
int __c3_restoring = 0;
__c3_function __c3_call_expected = nullptr;
// Objects compiled by c3cc refer to this symbol (precompiler/lib/LinkUnit.h): linked without
// c3's runtime (by plain mpicc or cc), they fail to link with a message that names the reason.
char __c3_objects_compiled_by_c3cc_must_be_linked_by_c3cc = 0;
}

namespace c3::frames {
namespace {

struct SavedFrame {
  uintptr_t address;
  std::vector<uint8_t> bytes;
};

std::vector<SavedFrame> g_saved;
size_t g_next = 0;

const char *name_or_unknown(const char *name) { return name ? name : "?"; }

// The function name stored in a saved record (a pointer into the same executable's rodata).
const char *saved_function(const SavedFrame &f) {
  __c3_frame h;
  std::memcpy(&h, f.bytes.data(), sizeof h);
  return name_or_unknown(h.function);
}

[[noreturn]] void diverged(const std::string &what) {
  std::fprintf(stderr, "c3: error: restart diverged: %s; was the program rebuilt?\n", what.c_str());
  std::fflush(stderr);
  std::exit(2);
}


}  // namespace

std::vector<const __c3_frame *> active_chain() {
  std::vector<const __c3_frame *> chain;
  for (const __c3_frame *f = __c3_top; f; f = f->prev) {
    if (!fixed_stack::contains(f, f->size) || f->size < sizeof(__c3_frame))
      throw CheckpointRefused(std::string("it is reached on a stack c3 does not manage (frame of '") +
                              name_or_unknown(f->function) + "' at " +
                              hex(reinterpret_cast<uintptr_t>(f)) +
                              ", e.g. in a signal handler or a thread); checkpoint from the "
                              "program's main thread");
    chain.push_back(f);
    if (chain.size() > (fixed_stack::top() - fixed_stack::base()) / sizeof(__c3_frame))
      throw CheckpointRefused("the frame chain loops (the program overwrote c3's frame records)");
  }
  if (chain.empty())
    throw CheckpointRefused("no instrumented function is on the stack");
  // Every frame must have been entered from a call site c3 can re-issue (the outermost one from
  // the generated __c3_app_main, which calls the user's main).
  for (size_t i = 0; i < chain.size(); ++i) {
    if (!chain[i]->entered_by_replayable_call)
      throw CheckpointRefused(std::string("it is reached through a call c3 cannot re-enter (into '") +
                              name_or_unknown(chain[i]->function) +
                              "' from code c3 did not instrument, e.g. a library callback or a "
                              "function c3 left uninstrumented); move the pragma out of it");
  }
  return {chain.rbegin(), chain.rend()};
}

void validate_saved(const std::vector<MemoryPiece> &saved) {
  if (saved.empty()) throw Error("the checkpoint holds no stack frames");
  uintptr_t outer = 0;
  for (size_t i = 0; i < saved.size(); ++i) {
    const MemoryPiece &p = saved[i];
    if (p.size < sizeof(__c3_frame) || p.size > UINT32_MAX ||
        !fixed_stack::contains(reinterpret_cast<void *>(p.address), p.size))
      throw Error("saved frame " + std::to_string(i) + " at " + hex(p.address) + " (size " +
                  std::to_string(p.size) + ") lies outside the application stack " +
                  hex(fixed_stack::base()) + "-" + hex(fixed_stack::top()));
    __c3_frame h;
    std::memcpy(&h, p.bytes, sizeof h);
    if (h.size != p.size || reinterpret_cast<uintptr_t>(h.prev) != outer)
      throw Error("saved frame " + std::to_string(i) + " at " + hex(p.address) +
                  " is not linked to the frame before it");
    outer = p.address;
  }
}

void load_for_replay(const std::vector<MemoryPiece> &saved) {
  g_saved.clear();
  for (const MemoryPiece &p : saved)
    g_saved.push_back(SavedFrame{p.address, std::vector<uint8_t>(p.bytes, p.bytes + p.size)});
  g_next = 0;
}

void finish_replay(const char *where) {
  uintptr_t innermost = g_saved.empty() ? 0 : g_saved.back().address;
  if (g_next != g_saved.size() || reinterpret_cast<uintptr_t>(__c3_top) != innermost)
    diverged(std::string("the checkpoint pragma at ") + where + " was reached after restoring " +
             std::to_string(g_next) + " of " + std::to_string(g_saved.size()) + " saved frames");
  g_saved.clear();
  g_saved.shrink_to_fit();
  g_next = 0;
}

}  // namespace c3::frames

using c3::frames::g_next;
using c3::frames::g_saved;

extern "C" void __c3_frame_restore(struct __c3_frame *frame) {
  const char *found_name = c3::frames::name_or_unknown(frame->function);
  uintptr_t found = reinterpret_cast<uintptr_t>(frame);
  if (g_next >= g_saved.size())
    c3::frames::diverged("'" + std::string(found_name) + "' entered at " + c3::hex(found) +
                         " after all " + std::to_string(g_saved.size()) +
                         " saved frames were restored");
  const c3::frames::SavedFrame &saved = g_saved[g_next];
  if (saved.address != found || saved.bytes.size() != frame->size) {
    std::string what = "frame of '" + std::string(c3::frames::saved_function(saved)) +
                       "' expected at " + c3::hex(saved.address) + " (size " +
                       std::to_string(saved.bytes.size()) + "), found at " +
                       c3::hex(found) + " (size " + std::to_string(frame->size) + ")";
    if (std::strcmp(c3::frames::saved_function(saved), found_name) != 0)
      what += " in '" + std::string(found_name) + "'";
    c3::frames::diverged(what);
  }
  std::memcpy(frame, saved.bytes.data(), saved.bytes.size());
  ++g_next;
}

extern "C" void __c3_bad_site(struct __c3_frame *frame) {
  c3::frames::diverged("no call site " + std::to_string(frame->site) + " in '" +
                       c3::frames::name_or_unknown(frame->function) + "'");
}
