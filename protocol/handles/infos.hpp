// Info objects across a checkpoint.
#pragma once

namespace c3::mpi {

void capture_infos();   // checkpoint: the contents of every info object the program holds
void recreate_infos();  // restart: built again from them

}  // namespace c3::mpi
