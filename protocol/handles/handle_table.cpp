#include "handles/handle_table.hpp"

#include <cstdio>
#include <string>

#include "layer/layer.hpp"

namespace c3::mpi {
namespace {

const char *kind_name(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::Comm: return "MPI_Comm";
    case ObjectKind::Group: return "MPI_Group";
    case ObjectKind::Datatype: return "MPI_Datatype";
    case ObjectKind::Errhandler: return "MPI_Errhandler";
    case ObjectKind::Op: return "MPI_Op";
    case ObjectKind::Info: return "MPI_Info";
    case ObjectKind::Keyval: return "attribute keyval";
    case ObjectKind::Request: return "MPI_Request";
  }
  return "MPI handle";
}

}  // namespace

void invalid_handle(ObjectKind kind, int handle) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%x", unsigned(handle));
  fatal(std::string("invalid ") + kind_name(kind) + " " + hex +
        " (it names no live object: was it freed, or never created?)");
}

void too_many_handles(ObjectKind kind) {
  fatal(std::string("too many live ") + kind_name(kind) + " objects");
}

}  // namespace c3::mpi
