"""What gen_p2p.py and gen_coll.py share: C lines with indentation, and the C helpers every
generated program has (a mixing function, the jitter pauses, the polling loops' checkpoint
site)."""


class Code:
    """C lines of one rank's part of a step, with indentation."""

    def __init__(self, depth=2):
        self.lines = []
        self.depth = depth

    def __call__(self, *lines):
        for line in lines:
            self.lines.append(line if line.startswith("#pragma") else "  " * self.depth + line)

    def open(self, line):
        self(line)
        self.depth += 1

    def close(self, line="}"):
        self.depth -= 1
        self(line)

    def pragma(self):
        self.lines.append("#pragma ccc_checkpoint")


# Needs `static uint64_t jitter` (0: no pauses), set from MPI_RANDOM_JITTER.
C_HELPERS = r"""
HELPER uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

HELPER void pause_maybe(void) {
  if (!jitter) return;
  jitter ^= jitter << 13;
  jitter ^= jitter >> 7;
  jitter ^= jitter << 17;
  if (jitter % 5 == 0) usleep((useconds_t)(jitter % 400));
}

/* Between two unsuccessful tests: an unforced checkpoint site (where `site` is set: a rank
 * whose peer has begun a checkpoint joins it here) and, with MPI_RANDOM_JITTER, a pause. */
HELPER void poll_pause(int site) {
  if (site) {
#pragma ccc_checkpoint
  }
  pause_maybe();
}
"""
