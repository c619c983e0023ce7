#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "store/ckpt_dir.hpp"
#include "store/ckpt_file.hpp"
#include "ckpt_test_tmpdir.hpp"
#include "support/error.hpp"

using c3::CheckpointDir;
using c3::CheckpointEntry;
using c3::test::TmpDir;

namespace {

bool exists(const std::string &path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

void put_file(const std::string &path, const std::string &content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  REQUIRE(out.good());
}

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A real checkpoint folder with `nranks` rank files (each with a small payload).
void make_checkpoint(const CheckpointDir &dir, uint64_t number, uint32_t nranks, bool commit) {
  dir.prepare(number);
  for (uint32_t r = 0; r < nranks; ++r) {
    c3::FileHeader h;
    h.rank = r;
    h.nranks = nranks;
    h.checkpoint = number;
    c3::CheckpointWriter w(dir.rank_file(number, r), h);
    w.add_section(c3::SectionKind::Meta, "0123456789", 10);
    w.commit();
  }
  if (commit) dir.mark_committed(number, nranks);
}

std::vector<uint64_t> numbers(const std::vector<CheckpointEntry> &entries) {
  std::vector<uint64_t> out;
  for (const auto &e : entries) out.push_back(e.number);
  return out;
}

}  // namespace

TEST_CASE("checkpoint directory paths", "[ckpt_dir]") {
  CheckpointDir dir("/some/where//");
  CHECK(dir.root() == "/some/where");
  CHECK(dir.checkpoint_path(3) == "/some/where/ckpt.000003");
  CHECK(dir.checkpoint_path(1234567) == "/some/where/ckpt.1234567");
  CHECK(dir.rank_file(3, 12) == "/some/where/ckpt.000003/rank.12.c3");
  CHECK(CheckpointDir("/").root() == "/");
  CHECK(CheckpointDir("rel").checkpoint_path(0) == "rel/ckpt.000000");
}

TEST_CASE("ensure_exists creates parents with mode 0700", "[ckpt_dir]") {
  TmpDir tmp;
  const std::string root = tmp / "a/b/c";
  CheckpointDir dir(root);
  dir.ensure_exists();
  for (const std::string &p : {tmp / "a", tmp / "a/b", root}) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 0777) == 0700);
  }
  CHECK_NOTHROW(dir.ensure_exists());  // idempotent
}

TEST_CASE("ensure_exists explains what is wrong with the path", "[ckpt_dir]") {
  TmpDir tmp;
  put_file(tmp / "file", "x");
  CHECK_THROWS_WITH(CheckpointDir(tmp / "file").ensure_exists(),
                    Catch::Contains("file") && Catch::Contains("not a directory"));
  CHECK_THROWS_AS(CheckpointDir(tmp / "file/below").ensure_exists(), c3::Error);
  // /proc refuses new directories even to root.
  CHECK_THROWS_WITH(CheckpointDir("/proc/c3-no-such-dir").ensure_exists(),
                    Catch::Contains("/proc/c3-no-such-dir"));

  const std::string readonly = tmp / "readonly";
  REQUIRE(::mkdir(readonly.c_str(), 0500) == 0);
  if (::access(readonly.c_str(), W_OK) == 0) {
    WARN("running with privileges that ignore permissions: read-only directory case skipped");
  } else {
    CHECK_THROWS_WITH(CheckpointDir(readonly).ensure_exists(), Catch::Contains("not writable"));
  }
}

TEST_CASE("commit marker and listing", "[ckpt_dir]") {
  TmpDir tmp;
  CheckpointDir dir(tmp / "ckpts");
  CHECK(dir.list().empty());  // a missing directory has no checkpoints
  CHECK(dir.highest_number() == 0);
  dir.ensure_exists();
  make_checkpoint(dir, 1, 2, true);
  make_checkpoint(dir, 2, 3, false);
  make_checkpoint(dir, 10, 1, true);

  const std::string marker = dir.checkpoint_path(1) + "/COMMITTED";
  CHECK_THAT(slurp(marker), Catch::Contains("nranks 2\n") && Catch::Contains("time "));
  CHECK_FALSE(exists(marker + ".tmp"));

  const auto entries = dir.list();
  REQUIRE(numbers(entries) == std::vector<uint64_t>{1, 2, 10});
  CHECK(entries[0].committed);
  CHECK(entries[0].nranks_expected == 2);
  CHECK(entries[0].ranks == std::vector<uint32_t>{0, 1});
  CHECK(entries[0].path == dir.checkpoint_path(1));
  CHECK(entries[0].bytes ==
        uint64_t(c3::CheckpointReader(dir.rank_file(1, 0)).file_size()) * 2);
  CHECK(entries[0].mtime_s > 1600000000);
  CHECK_FALSE(entries[1].committed);
  CHECK(entries[1].nranks_expected == 0);
  CHECK(entries[1].ranks == std::vector<uint32_t>{0, 1, 2});
  CHECK(entries[2].committed);
  CHECK(dir.highest_number() == 10);
}

TEST_CASE("listing ignores foreign and broken entries", "[ckpt_dir]") {
  TmpDir tmp;
  CheckpointDir dir(tmp.path());
  make_checkpoint(dir, 4, 2, true);
  // Foreign names next to the checkpoints.
  put_file(tmp / "README", "hello");
  put_file(tmp / "ckpt.000009", "a file, not a folder");
  REQUIRE(::mkdir((tmp / "ckpt.abc").c_str(), 0700) == 0);
  REQUIRE(::mkdir((tmp / "ckpt.12").c_str(), 0700) == 0);       // not our name for 12
  REQUIRE(::mkdir((tmp / "ckpt.0000005").c_str(), 0700) == 0);  // nor for 5
  REQUIRE(::mkdir((tmp / "ckpt.").c_str(), 0700) == 0);
  REQUIRE(::mkdir((tmp / "ckpt.99999999999999999999999").c_str(), 0700) == 0);
  REQUIRE(::symlink("nowhere", (tmp / "ckpt.000011").c_str()) == 0);
  // Foreign and leftover names inside a checkpoint folder.
  const std::string folder = dir.checkpoint_path(4);
  for (const char *name : {"rank.x.c3", "rank.01.c3", "rank.2.c3.tmp", "rank..c3", "rank.-1.c3",
                           "rank.99999999999.c3", "notes.txt"})
    put_file(folder + "/" + name, "junk");
  REQUIRE(::mkdir((folder + "/rank.7.c3").c_str(), 0700) == 0);  // a folder, not a file
  // A checkpoint whose marker is garbage is not committed.
  make_checkpoint(dir, 6, 1, false);
  put_file(dir.checkpoint_path(6) + "/COMMITTED", "garbage");
  // A torn marker (no final newline) neither.
  make_checkpoint(dir, 7, 1, false);
  put_file(dir.checkpoint_path(7) + "/COMMITTED", "c3 checkpoint\nnranks 1");

  const auto entries = dir.list();
  REQUIRE(numbers(entries) == std::vector<uint64_t>{4, 6, 7});
  CHECK(entries[0].committed);
  CHECK(entries[0].ranks == std::vector<uint32_t>{0, 1});
  CHECK_FALSE(entries[1].committed);
  CHECK_FALSE(entries[2].committed);
}

TEST_CASE("prepare replaces a stale leftover", "[ckpt_dir]") {
  TmpDir tmp;
  CheckpointDir dir(tmp.path());
  make_checkpoint(dir, 5, 2, true);
  REQUIRE(::mkdir((dir.checkpoint_path(5) + "/sub").c_str(), 0700) == 0);
  put_file(dir.checkpoint_path(5) + "/sub/deep", "x");
  dir.prepare(5);
  const auto entries = dir.list();
  REQUIRE(entries.size() == 1);
  CHECK_FALSE(entries[0].committed);
  CHECK(entries[0].ranks.empty());
  struct stat st {};
  REQUIRE(::stat(dir.checkpoint_path(5).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
}

TEST_CASE("remove is recursive and tolerates missing checkpoints", "[ckpt_dir]") {
  TmpDir tmp;
  CheckpointDir dir(tmp.path());
  make_checkpoint(dir, 3, 2, true);
  REQUIRE(::mkdir((dir.checkpoint_path(3) + "/sub").c_str(), 0700) == 0);
  put_file(dir.checkpoint_path(3) + "/sub/deep", "x");
  dir.remove(3);
  CHECK_FALSE(exists(dir.checkpoint_path(3)));
  CHECK_NOTHROW(dir.remove(3));
  CHECK(dir.list().empty());
}

TEST_CASE("prune keeps the newest committed checkpoints and everything newer", "[ckpt_dir]") {
  TmpDir tmp;
  CheckpointDir dir(tmp.path());
  make_checkpoint(dir, 1, 1, true);
  make_checkpoint(dir, 2, 1, false);  // abandoned
  make_checkpoint(dir, 3, 2, true);
  make_checkpoint(dir, 4, 1, false);  // abandoned between two committed ones
  make_checkpoint(dir, 5, 1, true);
  make_checkpoint(dir, 6, 1, false);  // in progress

  dir.prune(0);  // disabled
  CHECK(numbers(dir.list()) == std::vector<uint64_t>{1, 2, 3, 4, 5, 6});
  dir.prune(5);  // fewer committed than that: only what is older than the oldest committed goes
  CHECK(numbers(dir.list()) == std::vector<uint64_t>{1, 2, 3, 4, 5, 6});
  dir.prune(2);
  CHECK(numbers(dir.list()) == std::vector<uint64_t>{3, 4, 5, 6});
  dir.prune(1);
  CHECK(numbers(dir.list()) == std::vector<uint64_t>{5, 6});
  dir.prune(1);
  CHECK(numbers(dir.list()) == std::vector<uint64_t>{5, 6});
  CHECK_FALSE(exists(dir.checkpoint_path(1)));
}

TEST_CASE("prune removes nothing before the first commit", "[ckpt_dir]") {
  TmpDir tmp;
  CheckpointDir dir(tmp.path());
  make_checkpoint(dir, 1, 1, false);
  make_checkpoint(dir, 2, 1, false);
  dir.prune(1);
  CHECK(numbers(dir.list()) == std::vector<uint64_t>{1, 2});
  // Once something is committed, incomplete checkpoints before it are useless.
  make_checkpoint(dir, 3, 1, true);
  dir.prune(3);
  CHECK(numbers(dir.list()) == std::vector<uint64_t>{3});
}
