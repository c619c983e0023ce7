// Descriptors c3 keeps open while the program runs (held-back stdout, the MPI output record)
// live at high numbers: the program's own descriptors go back to their numbers at a restart
// (io/open_files.hpp), and one of c3's, opened in a different order then, must not be there.
#pragma once

namespace c3 {

constexpr int kOwnDescriptorsFrom = 900;

// Moves `fd` (close-on-exec) to the lowest free number >= kOwnDescriptorsFrom, or below it when
// the limit on open files does not reach that far; returns the new number (fd itself if it cannot).
int move_to_own_range(int fd);

}  // namespace c3
