#include "state/protocol_state.hpp"

namespace c3::mpi {

ProtocolState g_protocol_state;
Runtime g_runtime;

const char *mode_name(Mode mode) {
  switch (mode) {
    case Mode::Run: return "Run";
    case Mode::NonDetLog: return "NonDet-Log";
    case Mode::RecvOnlyLog: return "RecvOnly-Log";
    case Mode::Restore: return "Restore";
  }
  return "?";
}

}  // namespace c3::mpi
