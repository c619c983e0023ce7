// The program's open files across a restart: the FILES section (every byte flipped, every length
// cut short), what refuses a checkpoint, and a restore on real files (descriptor numbers,
// positions, cutting back, all or nothing, the journal of files opened after the checkpoint).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "c3/c3_abi.h"
#include "io/open_files.hpp"
#include "support/error.hpp"

using namespace c3;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/c3files.XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    path = pattern;
  }
  ~TempDir() { REQUIRE(std::system(("rm -rf " + path).c_str()) == 0); }
  std::string file(const std::string &name, const std::string &contents) const {
    std::string p = path + "/" + name;
    FILE *f = std::fopen(p.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs(contents.c_str(), f);
    std::fclose(f);
    return p;
  }
};

std::string contents_of(const std::string &path) {
  std::string s;
  FILE *f = std::fopen(path.c_str(), "r");
  if (!f) return "<missing>";
  int c;
  while ((c = std::getc(f)) != EOF) s += char(c);
  std::fclose(f);
  return s;
}

files::Handle descriptor(int fd, const std::string &path, int flags, uint64_t position,
                         uint64_t size) {
  files::Handle h;
  h.fd = fd;
  h.call = "open";
  h.where = "t.c:9";
  h.flags = flags;
  h.path = path;
  h.position = position;
  h.size = size;
  return h;
}

files::Record sample_record() {
  files::Record r;
  r.open.push_back(descriptor(7, "/data/in.txt", O_RDONLY, 12, 40));
  files::Handle s;
  s.stream = true;
  s.slot = 5;
  s.fd = 8;
  s.call = "fopen";
  s.where = "main.c:30";
  s.mode = "a";
  s.path = "/data/log.txt";
  s.position = 100;
  s.size = 100;
  s.eof = true;
  r.open.push_back(s);
  r.written.push_back({"/data/notes.txt", 33, true});
  return r;
}

SectionView view(const std::string &bytes) {
  return SectionView{uint32_t(SectionKind::Files), reinterpret_cast<const uint8_t *>(bytes.data()),
                     bytes.size()};
}

}  // namespace

TEST_CASE("open files: the FILES section round-trips") {
  files::Record r = sample_record();
  files::Record back = files::decode(view(files::encode(r)), "f");
  REQUIRE(back.open.size() == 2);
  CHECK(back.open[0].path == "/data/in.txt");
  CHECK(back.open[0].position == 12);
  CHECK(back.open[1].stream);
  CHECK(back.open[1].slot == 5);
  CHECK(back.open[1].mode == "a");
  CHECK(back.open[1].eof);
  REQUIRE(back.written.size() == 1);
  CHECK(back.written[0].size == 33);
}

TEST_CASE("open files: a FILES section cut short or with a flipped byte is refused as damage") {
  const std::string bytes = files::encode(sample_record());
  for (size_t n = 0; n < bytes.size(); ++n)
    CHECK_THROWS_AS(files::decode(view(bytes.substr(0, n)), "f"), CorruptCheckpoint);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = char(damaged[i] ^ 0x41);
    try {
      files::decode(view(damaged), "f");  // a flip inside a string or a number may still parse
    } catch (const CorruptCheckpoint &) {
    }
  }
}

TEST_CASE("open files: a pipe refuses the checkpoint, naming the call, unless a callback reopens") {
  files::Record r;
  files::Handle h = descriptor(4, "", O_RDONLY, 0, 0);
  h.call = "pipe";
  h.where = "p.c:21";
  h.refusal = "a pipe";
  r.open.push_back(h);
  CHECK(files::refusal(r, false) ==
        "descriptor 4 (opened by pipe() at p.c:21) is a pipe, and c3 carries only files across a "
        "restart: close the descriptor 4 before the checkpoint, or register a c3_on_restart "
        "callback that opens it again");
  CHECK(files::refusal(r, true).empty());
  r.open[0].refusal.clear();
  CHECK(files::refusal(r, false).empty());
}

TEST_CASE("open files: a restore puts descriptors back at their numbers and positions") {
  TempDir dir;
  std::string in = dir.file("in.txt", "0123456789");
  std::string out = dir.file("out.txt", "line 1\nline 2\nline 3 written after the checkpoint\n");
  files::Record r;
  r.open.push_back(descriptor(61, in, O_RDONLY, 4, 10));
  r.open.push_back(descriptor(62, out, O_WRONLY | O_CREAT | O_TRUNC, 14, 14));
  std::vector<std::string> warnings;
  files::restore(r, {}, warnings);
  CHECK(warnings.empty());
  char c = 0;
  REQUIRE(read(61, &c, 1) == 1);
  CHECK(c == '4');
  CHECK(contents_of(out) == "line 1\nline 2\n");  // cut back, not truncated by O_TRUNC
  REQUIRE(write(62, "line 3\n", 7) == 7);
  CHECK(contents_of(out) == "line 1\nline 2\nline 3\n");
  close(61);
  close(62);
}

TEST_CASE("open files: a file that cannot be reopened stops the restore before anything changes") {
  TempDir dir;
  std::string out = dir.file("out.txt", "kept as it is\n");
  files::Record r;
  r.open.push_back(descriptor(63, out, O_WRONLY, 5, 5));
  r.open.push_back(descriptor(64, dir.path + "/gone.txt", O_RDONLY, 0, 0));
  r.written.push_back({out, 5, true});
  std::vector<std::string> warnings;
  CHECK_THROWS_WITH(files::restore(r, {}, warnings),
                    "cannot reopen '" + dir.path + "/gone.txt' (opened by open() at t.c:9): No "
                    "such file or directory; put the file back, or run the program afresh "
                    "(without C3_RESTART)");
  CHECK(contents_of(out) == "kept as it is\n");
  CHECK(fcntl(63, F_GETFD) == -1);  // nothing left open
}

TEST_CASE("open files: a descriptor number the restarted process uses already stops the restore") {
  TempDir dir;
  std::string in = dir.file("in.txt", "x");
  int busy = dup(0);
  REQUIRE(busy >= 0);
  files::Record r;
  r.open.push_back(descriptor(busy, in, O_RDONLY, 0, 1));
  std::vector<std::string> warnings;
  CHECK_THROWS_WITH(files::restore(r, {}, warnings),
                    Catch::Contains("as descriptor " + std::to_string(busy) +
                                    ": the restarted process uses that number already"));
  close(busy);
}

TEST_CASE("open files: files opened for appending after the checkpoint are cut back by journal") {
  TempDir dir;
  std::string notes = dir.file("notes.txt", "before\n");
  std::string known = dir.file("known.txt", "0123456789");
  std::string journal = files::journal_path(dir.path, 0);
  CHECK(journal == dir.path + "/opened.rank0");
  files::journal_to(journal);
  __c3_io_site = "n.c:3";
  int fd = __c3_open(notes.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "after\n", 6) == 6);
  REQUIRE(__c3_close(fd) == 0);
  int again = __c3_open(notes.c_str(), O_WRONLY | O_APPEND);  // a later entry: the first counts
  REQUIRE(write(again, "more\n", 5) == 5);
  __c3_close(again);
  files::journal_to("");
  CHECK(contents_of(journal) == "7 " + notes + "\n" + "13 " + notes + "\n");
  {
    FILE *j = std::fopen(journal.c_str(), "a");  // a line cut short by a kill is ignored
    std::fputs(("3 " + known).c_str(), j);
    std::fclose(j);
  }
  files::Record r;
  std::vector<std::string> warnings;
  files::restore(r, {journal, dir.path + "/no-such-journal"}, warnings);
  CHECK(contents_of(notes) == "before\n");
  CHECK(contents_of(known) == "0123456789");
}

TEST_CASE("open files: streams are slots; libc gets its own FILE back") {
  TempDir dir;
  std::string path = dir.path + "/s.txt";
  __c3_io_site = "s.c:1";
  void *s = __c3_fopen(path.c_str(), "w");
  REQUIRE(s != nullptr);
  CHECK(files::is_slot(s));
  FILE *real = static_cast<FILE *>(__c3_stream(s));
  CHECK(real != s);
  std::fputs("through the slot\n", real);
  CHECK(__c3_stream(stdout) == stdout);  // not a slot: unchanged
  CHECK(__c3_stream(&__c3_streams[1]) == stdout);
  files::Record r = files::record();
  REQUIRE(r.open.size() == 1);
  CHECK(r.open[0].path == path);
  CHECK(r.open[0].where == "s.c:1");
  CHECK(r.open[0].position == 17);
  CHECK(r.open[0].refusal.empty());
  CHECK(__c3_fclose(s) == 0);
  CHECK(contents_of(path) == "through the slot\n");
  r = files::record();
  CHECK(r.open.empty());
  REQUIRE(r.written.size() == 1);
  CHECK(r.written[0].size == 17);
}
