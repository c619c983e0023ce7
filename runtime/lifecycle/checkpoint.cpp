#include "lifecycle/checkpoint.hpp"

#include <time.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <set>

#include "process/atexit_registry.hpp"
#include "store/build_id.hpp"
#include "c3/c3_abi.h"
#include "store/ckpt_dir.hpp"
#include "store/ckpt_file.hpp"
#include "lifecycle/coordinator.hpp"
#include "io/output_commit.hpp"
#include "support/error.hpp"
#include "support/text_format.hpp"
#include "lifecycle/fault_injection.hpp"
#include "memory/fixed_stack.hpp"
#include "memory/frames.hpp"
#include "memory/globals.hpp"
#include "memory/heap_arena.hpp"
#include "store/memory_image.hpp"
#include "process/random_state.hpp"
#include "lifecycle/runtime_state.hpp"
#include "io/open_files.hpp"
#include "io/stdio_trim.hpp"

namespace c3::checkpoint {
namespace {

uint64_t g_interval_ns = 0;           // 0: unforced sites never checkpoint
uint64_t g_next_due_ns = UINT64_MAX;  // CLOCK_MONOTONIC_COARSE time of the next due checkpoint
int g_count_sites = 0;                // a site:K fault is armed
int g_requested = 0;                  // the coordinator asks for a checkpoint at the next site
int g_poll_sites = 0;                 // the coordinator wants to see every site (MPI)

uint64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void schedule_next() {
  g_next_due_ns = g_interval_ns ? now_ns(CLOCK_MONOTONIC_COARSE) + g_interval_ns : UINT64_MAX;
}

std::string fixed3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}


// Newest committed checkpoint other than `number`, for the failure message.
std::optional<uint64_t> newest_committed_before(const CheckpointDir &dir, uint64_t number) {
  std::optional<uint64_t> best;
  try {
    for (const CheckpointEntry &e : dir.list())
      if (e.committed && e.number < number) best = e.number;
  } catch (const Error &) {
    uint64_t last = persistent_state().last_checkpoint;
    if (last && last < number) best = last;
  }
  return best;
}

// Writes checkpoint `number`'s file for this rank and commits it. Returns the file size.
uint64_t write_and_commit(const CheckpointDir &dir, uint64_t number, const char *where,
                          const std::vector<const __c3_frame *> &chain,
                          const stdio_trim::Record &stdio, const files::Record &open_files,
                          const std::string &held_output,
                          uint64_t start_ns, bool &committed) {
  const Config &cfg = config();
  Coordinator &co = coordinator();
  dir.ensure_exists();
  dir.prepare(number, co.nranks() > 1);

  FileHeader header;
  header.build_id = executable_build_id();
  header.rank = co.rank();
  header.nranks = co.nranks();
  header.checkpoint = number;
  header.unix_time_ns = now_ns(CLOCK_REALTIME);

  MemoryImageBuilder globals_image;
  globals::add_to_image(globals_image);
  MemoryImageBuilder heap_image;
  // Whole pages, so a restart can map them back from the file instead of copying them.
  for (const heap::Extent &e : heap::live_extents())
    heap_image.add_pages(reinterpret_cast<const void *>(e.addr), e.size);
  MemoryImageBuilder frames_image;
  for (const __c3_frame *f : chain) frames_image.add(f, f->size);

  std::string protocol_payload = co.snapshot(number);
  PersistentState next = persistent_state();
  next.last_checkpoint = number;
  next.checkpoints_taken += 1;
  std::string runtime_payload = encode_persistent_state(next);
  std::string stdio_payload = stdio_trim::encode(stdio);
  std::string files_payload = files::encode(open_files);

  heap::Stats hs = heap::stats();
  std::map<std::string, std::string> meta = {
      {"checkpoint", std::to_string(number)},
      {"unix_time_ns", std::to_string(header.unix_time_ns)},
      {"where", where},
      {"rank", std::to_string(header.rank)},
      {"nranks", std::to_string(header.nranks)},
      {"globals", std::to_string(globals_image.count())},
      {"globals_bytes", std::to_string(globals_image.data_bytes())},
      {"heap_extents", std::to_string(heap_image.count())},
      {"heap_bytes", std::to_string(heap_image.data_bytes())},
      {"heap_base", hex(heap::kDefaultBase)},
      {"heap_reserve", std::to_string(cfg.heap_size)},
      {"heap_in_use", std::to_string(hs.bytes_in_use)},
      {"heap_blocks", std::to_string(hs.blocks_in_use)},
      {"frames", std::to_string(frames_image.count())},
      {"frames_bytes", std::to_string(frames_image.data_bytes())},
      {"innermost_function", chain.back()->function ? chain.back()->function : "?"},
      {"stack_top", hex(fixed_stack::top())},
      {"checkpoints_taken", std::to_string(next.checkpoints_taken)},
      {"open_files", std::to_string(open_files.open.size())},
  };
  std::string meta_payload = encode_meta(meta);

  uint64_t size = 0;
  {
    CheckpointWriter writer(dir.rank_file(number, co.rank()), header);
    writer.add_section(SectionKind::Meta, meta_payload.data(), meta_payload.size());
    writer.add_section(SectionKind::Globals, globals_image.pieces());
    writer.add_section(SectionKind::Heap, heap_image.pieces(writer.next_payload_offset(), kPageBytes));
    fault::reached(FaultStage::MidWrite, number);
    writer.add_section(SectionKind::Frames, frames_image.pieces());
    writer.add_section(SectionKind::Runtime, runtime_payload.data(), runtime_payload.size());
    writer.add_section(SectionKind::Stdio, stdio_payload.data(), stdio_payload.size());
    writer.add_section(SectionKind::HeldOutput, held_output.data(), held_output.size());
    writer.add_section(SectionKind::Files, files_payload.data(), files_payload.size());
    if (!protocol_payload.empty())
      writer.add_section(SectionKind::Protocol, protocol_payload.data(), protocol_payload.size());
    writer.commit();
    size = writer.bytes_written();
  }
  // Files the program opens for writing from here on are noted beside this checkpoint.
  files::journal_to(files::journal_path(dir.checkpoint_path(number), co.rank()));
  fault::reached(FaultStage::BeforeCommit, number);
  committed = co.file_written(dir, number, cfg.keep);

  next.bytes_written += size;
  next.write_ns += now_ns(CLOCK_MONOTONIC) - start_ns;
  persistent_state() = next;
  if (cfg.verbose)
    std::fprintf(stderr,
                 "c3: checkpoint %lu at %s: %zu globals (%s), %zu heap extents (%s), %zu frames "
                 "(%s)\n",
                 static_cast<unsigned long>(number), where, globals_image.count(),
                 human_bytes(globals_image.data_bytes()).c_str(), heap_image.count(),
                 human_bytes(heap_image.data_bytes()).c_str(), frames_image.count(),
                 human_bytes(frames_image.data_bytes()).c_str());
  return size;
}

void end_replay(const char *where) {
  frames::finish_replay(where);
  __c3_restoring = 0;
  schedule_next();
  coordinator().replay_finished();
  // libc state kept in application memory, now that the frames are back too (a program may keep
  // its random() state in a local array).
  if (!random_state::resume(persistent_state().random_state))
    std::fprintf(stderr, "c3: warning: the random() state saved at the checkpoint is unusable; "
                         "random()/rand() continue from another state\n");
  // After output_commit's own handler, so the program's handlers run before it at exit.
  atexit_registry::register_saved();
  // Copy: a callback may register another one.
  std::vector<OnRestartCallback> callbacks = persistent_state().on_restart;
  for (const OnRestartCallback &cb : callbacks)
    reinterpret_cast<void (*)(void *)>(cb.function)(reinterpret_cast<void *>(cb.arg));
}

}  // namespace

void request() { g_requested = 1; }
void poll_sites(bool on) { g_poll_sites = on; }

void init(const Config &cfg) {
  g_interval_ns = cfg.interval_ns;
  fault::arm(cfg.fault);
  g_count_sites = fault::site_armed();
  schedule_next();
}

// A checkpoint that cannot be taken is reported once per pragma: the program goes on, and an
// MPI job's other ranks ask again at every visit.
void report_refusal(const char *where, const std::string &why) {
  static std::set<std::string> reported;
  if (!reported.insert(where).second) return;
  std::fprintf(stderr, "c3: warning: checkpoint at %s not taken: %s\n", where, why.c_str());
}

bool take(const char *where) {
  uint64_t start_ns = now_ns(CLOCK_MONOTONIC);
  g_requested = 0;
  // Everything the program printed so far belongs before the checkpoint; files are measured
  // with their buffers written out.
  std::fflush(nullptr);
  std::vector<const __c3_frame *> chain;
  files::Record open_files;
  try {
    std::string refusal = coordinator().refusal();
    if (refusal.empty()) {
      open_files = files::record();
      refusal = files::refusal(open_files, !persistent_state().on_restart.empty());
    }
    if (!refusal.empty()) throw frames::CheckpointRefused(refusal);
    chain = frames::active_chain();
  } catch (const frames::CheckpointRefused &e) {
    report_refusal(where, e.what());
    schedule_next();
    return false;
  }

  stdio_trim::Record stdio = stdio_trim::record();
  std::string held_output = output::held_back();
  // Before the heap and globals are written: the position goes into the state array.
  persistent_state().random_state = random_state::prepare_checkpoint();

  CheckpointDir dir(config().ckpt_dir);
  uint64_t number = coordinator().next_number(dir, persistent_state().last_checkpoint);
  uint64_t size = 0;
  bool committed = false;
  try {
    size = write_and_commit(dir, number, where, chain, stdio, open_files, held_output, start_ns,
                            committed);
  } catch (const Error &e) {
    coordinator().file_failed(number);
    std::optional<uint64_t> kept = newest_committed_before(dir, number);
    try {
      dir.remove(number);
    } catch (const Error &) {
      // Nothing was created, or the directory is unusable; the message below says why.
    }
    std::string stays = kept ? "checkpoint " + std::to_string(*kept) + " stays the newest"
                             : "no committed checkpoint yet";
    std::fprintf(stderr, "c3: error: checkpoint %lu not written: %s; %s\n",
                 static_cast<unsigned long>(number), e.what(), stays.c_str());
    schedule_next();
    return false;
  }
  if (!committed) {  // the coordinator commits it later, and reports it then
    schedule_next();
    return false;
  }
  // The output up to this checkpoint is now safe to show: a restart resumes after it. A restart
  // from this checkpoint shows it again unless it is marked as shown (killed in between).
  fault::reached(FaultStage::BeforeRelease, number);
  const std::string folder = dir.checkpoint_path(number);
  output::release([&](uint64_t shown, uint64_t showing) {
    if (shown < showing) {
      output::mark_showing(folder);
    } else {
      fault::reached(FaultStage::MidRelease, number);
      output::mark_released(folder);
    }
  });
  double seconds = double(now_ns(CLOCK_MONOTONIC) - start_ns) / 1e9;
  std::fprintf(stderr, "c3: checkpoint %lu committed (%s, %s s)\n",
               static_cast<unsigned long>(number), human_bytes(size).c_str(),
               fixed3(seconds).c_str());
  std::fflush(stderr);
  fault::reached(FaultStage::AfterCommit, number);
  schedule_next();
  return true;
}

std::string encode_meta(const std::map<std::string, std::string> &fields) {
  std::string out;
  for (const auto &[key, value] : fields) {
    out += key;
    out += '=';
    for (char c : value) out += (c == '\n' ? ' ' : c);  // one line per field, always
    out += '\n';
  }
  return out;
}

std::map<std::string, std::string> decode_meta(const std::string &text) {
  std::map<std::string, std::string> fields;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    size_t eq = line.find('=');
    if (eq != std::string::npos) fields[line.substr(0, eq)] = line.substr(eq + 1);
    pos = end + 1;
  }
  return fields;
}


}  // namespace c3::checkpoint

using namespace c3::checkpoint;

namespace {
// Everything past the first test, out of line so the common case stays a leaf.
__attribute__((noinline)) void site_slow_path(int force, const char *where) {
  if (__c3_restoring) {
    end_replay(where);
    return;
  }
  c3::fault::site_visited();
  bool interval_due = g_interval_ns && now_ns(CLOCK_MONOTONIC_COARSE) >= g_next_due_ns;
  if (c3::coordinator().wants_checkpoint(force, interval_due || g_requested)) take(where);
}
}  // namespace

extern "C" void __c3_checkpoint_site(int force, const char *where) {
  // Unforced, nothing to replay, no fault counting, no C3_INTERVAL: a leaf of a few loads. With an
  // interval, one vDSO clock read decides (the slow path re-reads it).
  if (__builtin_expect(!(force | __c3_restoring | g_count_sites | g_requested | g_poll_sites), 1) &&
      !g_interval_ns)
    return;
  site_slow_path(force, where);
}
