// Taking checkpoints at pragma sites: when one is due, the order of work and the file's
// sections. The commit step is behind Coordinator (coordinator.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "lifecycle/config.hpp"

namespace c3 {

namespace checkpoint {

// Prepares the interval timer and fault injection for this process (call once, at start-up).
void init(const Config &config);

// The coordinator asks for a checkpoint at the next pragma site, forced or not (another rank
// has started one).
void request();
// Every site, forced or not, asks the coordinator (an MPI job must notice that another rank
// started a checkpoint even at unforced sites).
void poll_sites(bool on);

// Takes checkpoint now (whatever the timer says) at `where`. Never throws: failures are reported
// on stderr and the program keeps running. Returns true if a checkpoint was committed.
bool take(const char *where);

// META section: "key=value" lines, readable by tools.
std::string encode_meta(const std::map<std::string, std::string> &fields);
std::map<std::string, std::string> decode_meta(const std::string &text);


}  // namespace checkpoint
}  // namespace c3
