// The files a program has open, across a restart. The precompiler renames the calls that open and
// close files (fopen, open, pipe, ...; io/file_calls.cpp) to the runtime's, which keep this
// table. A FILE * the program holds is the address of a slot in a table at a fixed address (the
// executable is linked -no-pie), never glibc's own object, and the precompiler translates it at
// every call of a libc function taking a FILE * (__c3_stream). A descriptor is the number libc
// returned. At a checkpoint each open file's path, mode and position are recorded, with the
// length of every file the program writes; a restart reopens each one, puts its descriptor back
// at the same number and its stream in the same slot, and cuts the files the program writes back
// to their length at the checkpoint, so a restarted run never leaves a line twice in them.
#pragma once
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "store/ckpt_file.hpp"

namespace c3::files {

// One handle the program holds: a stream (FILE *) or a descriptor it opened itself.
struct Handle {
  bool stream = false;
  uint32_t slot = 0;     // a stream's slot in __c3_streams
  int fd = -1;           // the descriptor (a stream's own, at the checkpoint)
  std::string call;      // the call that opened it: "fopen", "open", "pipe", ...
  std::string where;     // "file.c:12", or "" when called through a function pointer
  std::string mode;      // a stream's fopen mode
  int flags = 0;         // a descriptor's open flags
  bool memory = false;   // fmemopen/open_memstream: no file behind it
  // Filled in at the checkpoint:
  std::string path;      // absolute; "" when there is no path to reopen
  std::string refusal;   // why it cannot be carried ("" when it can)
  uint64_t position = 0;
  uint64_t size = 0;     // the file's length (what a restart cuts a written file back to)
  bool eof = false;      // a stream's end-of-file indicator

  bool writes() const;
  template <class Archive>
  void serialize(Archive &ar, unsigned /*version*/) {
    ar &stream &slot &fd &call &where &mode &flags &memory &path &refusal &position &size &eof;
  }
};

// A file the program wrote and closed: cut back at a restart like an open one (a log opened,
// appended to and closed at every step).
struct WrittenFile {
  std::string path;
  uint64_t size = 0;  // at the checkpoint
  bool exists = false;
  template <class Archive>
  void serialize(Archive &ar, unsigned /*version*/) {
    ar &path &size &exists;
  }
};

struct Record {
  std::vector<Handle> open;
  std::vector<WrittenFile> written;
  template <class Archive>
  void serialize(Archive &ar, unsigned /*version*/) {
    ar &open &written;
  }
};

constexpr uint32_t kStreamSlots = 1024;  // streams open at once (slots 0-2: stdin/out/err)
constexpr size_t kMaxWrittenFiles = 4096;

// --- The table (io/file_calls.cpp keeps it up to date) ---
// A new stream over `real` (a glibc FILE *); returns its slot's address, or nullptr (errno
// EMFILE) when every slot is taken.
void *add_stream(void *real, const char *call, const char *mode, bool memory);
// The stream a slot address stands for; `p` itself when it is not a slot (a FILE * from code
// c3cc did not compile). Slots 0-2 are stdin, stdout and stderr.
void *real_stream(void *p);
bool is_slot(const void *p);
bool is_opened_slot(const void *p);  // a slot of a stream the program opened (not 0-2)
// The stream in slot `p` is being closed (or reopened: `reopened` is its new FILE *).
void stream_closed(void *p);
void stream_reopened(void *p, void *real, const char *mode);
void add_descriptor(int fd, const char *call, int flags);
void descriptor_closed(int fd);
void descriptor_duplicated(int from, int to, const char *call);
// The call site the generated code named just before the call (__c3_io_site), taken once.
std::string take_site();

// --- Checkpoint ---
// Where each handle stands now (after fflush(NULL)).
Record record();
// Why no checkpoint can be taken with these handles open, or "". Handles that cannot be carried
// (pipes, sockets, devices, memory streams, deleted files) refuse it unless the program
// registered a c3_on_restart callback, which then opens them again.
std::string refusal(const Record &now, bool callbacks_registered);

// FILES section payload. decode throws CorruptCheckpoint mentioning `path`.
std::string encode(const Record &r);
Record decode(const SectionView &section, const std::string &path);

// --- Files first written after the newest checkpoint ---
// A checkpoint knows the files written before it. A file the program opens for writing without
// truncating it (appending, "r+") after the checkpoint is unknown to it, so the runtime notes
// its length at that moment in a journal beside the newest checkpoint this process wrote
// (DIR/ckpt.N/opened.rank<R>) before the program writes to it; a restart from checkpoint K cuts
// such files back to the length the journals of K and of every newer checkpoint folder say.
std::string journal_path(const std::string &checkpoint_path, uint32_t rank);
void journal_to(const std::string &path);  // "" stops journaling

// --- Restart ---
// Reopens every carried handle of `saved` at its descriptor number and slot, positions it, and
// cuts written files back to their length at the checkpoint. All or nothing: every file is
// opened before any is changed, and a file that cannot be reopened (deleted, moved, no
// permission, its descriptor number taken) throws c3::Error naming it and where it was opened.
// Then the files in `journals` (journal_path of the checkpoint restarted from and of every newer
// folder) that `saved` does not know are cut back. Warnings (a file shorter than at the
// checkpoint) are appended to `warnings`.
void restore(const Record &saved, const std::vector<std::string> &journals,
             std::vector<std::string> &warnings);

}  // namespace c3::files
