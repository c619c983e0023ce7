#include "lifecycle/restart.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "store/build_id.hpp"
#include "c3/c3_abi.h"
#include "store/ckpt_dir.hpp"
#include "store/ckpt_file.hpp"
#include "lifecycle/coordinator.hpp"
#include "support/error.hpp"
#include "support/text_format.hpp"
#include "memory/frames.hpp"
#include "memory/globals.hpp"
#include "memory/heap_arena.hpp"
#include "store/memory_image.hpp"
#include "lifecycle/runtime_state.hpp"
#include "io/output_commit.hpp"
#include "io/open_files.hpp"
#include "io/stdio_trim.hpp"

namespace c3::restart {
namespace {

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "c3: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(2);
}


std::string short_id(const std::string &id) {
  std::string h = to_hex(id);
  return h.size() > 12 ? h.substr(0, 12) + ".." : h;
}

// Everything a restart needs, decoded and checked against this process, the heap read into the
// arena already (load).
struct Image {
  uint64_t number = 0;
  std::unique_ptr<CheckpointReader> reader;
  std::vector<MemoryPiece> globals, frames;
  size_t heap_extents = 0;
  PersistentState state;
  stdio_trim::Record stdio;
  std::string held_output;  // stdout the checkpointed run had not released at the checkpoint
  files::Record files;      // the program's open files
};

// Opens checkpoint `number`'s file for this rank. CorruptCheckpoint (and I/O errors reading the
// file) propagate; a foreign executable or a different rank count ends the process.
std::unique_ptr<CheckpointReader> open_checked(const CheckpointDir &dir, uint64_t number) {
  Coordinator &co = coordinator();
  std::string path = dir.rank_file(number, co.rank());
  auto reader = std::make_unique<CheckpointReader>(path, Verify::Structure);
  const FileHeader &h = reader->header();
  if (h.build_id != executable_build_id())
    fatal("checkpoint " + std::to_string(number) + " was written by a different executable " +
          "(build-id " + short_id(h.build_id) + " vs " + short_id(executable_build_id()) +
          "); rebuild or point C3_CKPT_DIR elsewhere");
  if (h.nranks != co.nranks())
    fatal("checkpoint " + std::to_string(number) + " was written by " + std::to_string(h.nranks) +
          " processes, this run has " + std::to_string(co.nranks()) +
          "; restart with the same number of processes");
  if (h.checkpoint != number || h.rank != co.rank())
    throw CorruptCheckpoint(path + ": header says checkpoint " + std::to_string(h.checkpoint) +
                            " rank " + std::to_string(h.rank));
  return reader;
}

// Decodes the sections (CorruptCheckpoint on malformed payloads) and checks they fit this
// process (c3::Error, not a damaged file: the program or its settings differ).
Image decode(uint64_t number, std::unique_ptr<CheckpointReader> reader) {
  Image img;
  img.number = number;
  const std::string &path = reader->path();
  img.globals = decode_memory_image(reader->section(SectionKind::Globals), path);
  img.frames = decode_memory_image(reader->section(SectionKind::Frames), path);
  const SectionView &rt = reader->section(SectionKind::Runtime);
  img.state = decode_persistent_state(rt.data, rt.size, path);
  img.stdio = stdio_trim::decode(reader->section(SectionKind::Stdio), path);
  if (const SectionView *s = reader->find(SectionKind::HeldOutput))
    img.held_output.assign(reinterpret_cast<const char *>(s->data), s->size);
  if (const SectionView *s = reader->find(SectionKind::Files)) img.files = files::decode(*s, path);
  img.reader = std::move(reader);
  return img;
}

// Settings of this run the checkpoint does not fit: not damage, so no fallback (fatal).
struct Misfit : Error {
  using Error::Error;
};

void check_fits(const Image &img) {
  try {
    globals::validate_saved(img.globals);
    frames::validate_saved(img.frames);
  } catch (const Error &e) {
    throw Misfit(std::string("does not fit this program: ") + e.what());
  }
}

void check_heap_fits(const std::vector<MemoryPiece> &heap, const Config &cfg) {
  const uintptr_t lo = heap::kDefaultBase, hi = heap::kDefaultBase + cfg.heap_size;
  for (const MemoryPiece &p : heap) {
    if (p.address < lo || p.address > hi || p.size > hi - p.address)
      throw Misfit("holds heap data at " + hex(p.address) + "-" + hex(p.address + p.size) +
                   ", outside the heap arena " + hex(lo) + "-" + hex(hi) +
                   "; restart with the C3_HEAP_SIZE the checkpoint was taken with");
  }
}

// Checkpoint `n`, checked against this process, its heap read straight into the (reset) arena
// and every byte of the file verified; throws Error when it is damaged (the arena then holds
// part of it: the next load resets it again).
Image load(const CheckpointDir &dir, uint64_t n, const Config &cfg) {
  try {
    Image img = decode(n, open_checked(dir, n));
    check_fits(img);
    heap::reset_for_restore();
    read_memory_image_in_place(*img.reader, SectionKind::Heap,
                               [&](const std::vector<MemoryPiece> &heap) {
                                 check_heap_fits(heap, cfg);
                                 img.heap_extents = heap.size();
                               });
    img.reader->verify_rest();
    return img;
  } catch (const Misfit &e) {
    fatal("checkpoint " + std::to_string(n) + " " + e.what());
  }
}

// Loads the first candidate every process can load (each process its own file; a coordinator
// of several processes makes them agree), warning about the ones passed over.
Image load_first_usable(const CheckpointDir &dir, const std::vector<uint64_t> &candidates,
                        const Config &cfg, std::vector<std::string> &warnings) {
  Coordinator &co = coordinator();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const uint64_t n = candidates[i];
    Image img;
    std::string why;
    try {
      img = load(dir, n, cfg);
    } catch (const Error &e) {
      why = e.what();
    }
    const std::vector<uint32_t> failed = co.ranks_that_failed_to_load(why.empty());
    if (failed.empty()) return img;
    std::string what = "checkpoint " + std::to_string(n) + " is damaged";
    if (!why.empty()) {
      what += " (" + why + ")";
    } else {
      what += " on rank";
      for (size_t k = 0; k < failed.size(); ++k) what += (k ? ", " : " ") + std::to_string(failed[k]);
    }
    if (i + 1 == candidates.size())
      co.give_up_restart(candidates.size() == 1 && cfg.restart == RestartMode::Number
                             ? what
                             : what + "; no older committed checkpoint in " + dir.root(),
                         !why.empty());
    if (!why.empty() || co.rank() == 0)
      warnings.push_back(what + "; falling back to checkpoint " + std::to_string(candidates[i + 1]));
  }
  fatal("no usable checkpoint in " + dir.root());
}

// Candidates for C3_RESTART=latest/auto: committed checkpoints, newest first.
std::vector<uint64_t> committed_newest_first(const std::vector<CheckpointEntry> &entries) {
  std::vector<uint64_t> out;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->committed) out.push_back(it->number);
  return out;
}

// Returns the image to restore, or an empty image (number 0) for a fresh run. Warnings are
// collected so they can be printed after stderr has been cut back.
Image select(const Config &cfg, std::vector<std::string> &warnings) {
  CheckpointDir dir(cfg.ckpt_dir);
  Coordinator &co = coordinator();
  if (co.chooses_restart()) {
    // Every rank checked its files of these already and they agree on the order.
    std::vector<uint64_t> agreed = co.restart_candidates(dir, cfg);
    if (agreed.empty()) return Image{};
    return load_first_usable(dir, agreed, cfg, warnings);
  }
  std::vector<CheckpointEntry> entries;
  try {
    entries = dir.list();
  } catch (const Error &e) {
    if (cfg.restart == RestartMode::Auto) return Image{};
    fatal(std::string("cannot read checkpoint directory: ") + e.what());
  }

  if (cfg.restart == RestartMode::Number) {
    const uint64_t n = cfg.restart_number;
    const CheckpointEntry *found = nullptr;
    for (const CheckpointEntry &e : entries)
      if (e.number == n) found = &e;
    if (!found) fatal("checkpoint " + std::to_string(n) + " not found in " + dir.root());
    if (!found->committed)
      fatal("checkpoint " + std::to_string(n) + " in " + dir.root() +
            " was never committed (its writing did not finish)");
    return load_first_usable(dir, {n}, cfg, warnings);
  }

  std::vector<uint64_t> candidates = committed_newest_first(entries);
  if (candidates.empty()) {
    if (cfg.restart == RestartMode::Auto) return Image{};
    fatal("nothing to restart from: " + dir.why_nothing_committed());
  }
  return load_first_usable(dir, candidates, cfg, warnings);
}

}  // namespace

bool prepare(const Config &cfg) {
  if (cfg.restart == RestartMode::Fresh) return false;
  coordinator().restart_begin(cfg);
  std::vector<std::string> warnings;
  Image img = select(cfg, warnings);
  if (img.number == 0) return false;  // C3_RESTART=auto with nothing to restart from
  coordinator().restore(*img.reader, img.number);

  try {
    heap::verify();
  } catch (const Error &e) {
    fatal("checkpoint " + std::to_string(img.number) + ": the restored heap is inconsistent (" +
          e.what() + ")");
  }
  globals::restore(img.globals);
  frames::load_for_replay(img.frames);
  PersistentState &state = persistent_state();
  state = img.state;
  state.restarts += 1;
  ProcessState &proc = process_state();
  proc.restarted = true;
  proc.restart_checkpoint = img.number;

  // The program's files before its output: a file that cannot be reopened stops the restart
  // before anything is shown or cut.
  CheckpointDir dir(cfg.ckpt_dir);
  const uint32_t rank = coordinator().rank();
  std::vector<std::string> journals;
  try {
    for (const CheckpointEntry &e : dir.list())
      if (e.number >= img.number) journals.push_back(files::journal_path(e.path, rank));
  } catch (const Error &) {
    journals.push_back(files::journal_path(dir.checkpoint_path(img.number), rank));
  }
  try {
    files::restore(img.files, journals, warnings);
  } catch (const Error &e) {
    fatal("restart from checkpoint " + std::to_string(img.number) + " stopped: " + e.what());
  }
  files::journal_to(files::journal_path(dir.checkpoint_path(img.number), rank));

  // Cut the output back first, so the lines below are not cut away with it. Output the killed run
  // held back at the checkpoint was lost if it died before releasing it: show it now.
  // The same regular file is cut back to before the held bytes and gets all of them again;
  // anything else (a pipe, another file) gets the part the killed run had not shown yet.
  CheckpointDir ckpt_dir(cfg.ckpt_dir);
  const uint64_t held = img.held_output.size();
  uint64_t shown = 0;
  const stdio_trim::StreamPosition now = stdio_trim::position_of(1);
  const bool same_file = stdio_trim::stdout_cuttable(img.stdio) && now.regular &&
                         now.dev == img.stdio.out.dev && now.ino == img.stdio.out.ino;
  if (same_file && img.stdio.out.offset >= held)
    img.stdio.out.offset -= held;
  else
    shown = std::min(held, coordinator().held_output_shown(ckpt_dir, img.number, held));
  stdio_trim::apply(img.stdio);
  output::reemit(img.held_output.substr(shown));
  for (const std::string &w : warnings) std::fprintf(stderr, "c3: warning: %s\n", w.c_str());
  std::fprintf(stderr, "c3: restarting from checkpoint %lu (%s)\n",
               static_cast<unsigned long>(img.number), dir.checkpoint_path(img.number).c_str());
  if (cfg.verbose)
    std::fprintf(stderr,
                 "c3: restored %zu globals, %zu heap extents, %zu frames (%lu bytes read)\n",
                 img.globals.size(), img.heap_extents, img.frames.size(),
                 static_cast<unsigned long>(img.reader->file_size()));
  std::fflush(stderr);
  __c3_restoring = 1;
  return true;
}

}  // namespace c3::restart
