// Test helper: writes a checkpoint with a few sections into a checkpoint directory, with the
// real writer, so the c3 tool can be tested on genuine files.
//   c3_sample_checkpoint DIR NUMBER NRANKS [--no-commit]
// --no-commit writes only rank 0 and no COMMITTED marker (an interrupted checkpoint).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "store/ckpt_dir.hpp"
#include "store/ckpt_file.hpp"
#include "support/error.hpp"

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5 || (argc == 5 && std::strcmp(argv[4], "--no-commit") != 0)) {
    std::fprintf(stderr, "usage: %s DIR NUMBER NRANKS [--no-commit]\n", argv[0]);
    return 2;
  }
  const uint64_t number = std::strtoull(argv[2], nullptr, 10);
  const uint32_t nranks = uint32_t(std::strtoul(argv[3], nullptr, 10));
  const bool commit = argc == 4;
  try {
    const c3::CheckpointDir dir(argv[1]);
    dir.ensure_exists();
    dir.prepare(number);
    for (uint32_t rank = 0; rank < (commit ? nranks : 1u); ++rank) {
      c3::FileHeader header;
      header.build_id = "\x12\x34\x56\x78sample-build-id";
      header.rank = rank;
      header.nranks = nranks;
      header.checkpoint = number;
      c3::CheckpointWriter writer(dir.rank_file(number, rank), header);
      const std::string meta = "sample checkpoint " + std::to_string(number);
      writer.add_section(c3::SectionKind::Meta, meta.data(), meta.size());
      int counter = 42;
      double values[5] = {1, 2, 3, 4, 5};
      writer.add_section(c3::SectionKind::Globals,
                         {{&counter, sizeof counter}, {values, sizeof values}});
      std::vector<unsigned char> heap(100000 + rank);
      for (size_t i = 0; i < heap.size(); ++i) heap[i] = (unsigned char)(i * 7 + rank);
      writer.add_section(c3::SectionKind::Heap, heap.data(), heap.size());
      writer.add_section(c3::SectionKind::Frames, nullptr, 0);
      writer.commit();
    }
    if (commit) dir.mark_committed(number, nranks);
  } catch (const c3::Error &err) {
    std::fprintf(stderr, "c3_sample_checkpoint: %s\n", err.what());
    return 1;
  }
  return 0;
}
