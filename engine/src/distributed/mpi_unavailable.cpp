// The MPI backend of a build configured without MPI (no libopenmpi-dev).

#include "tscope/engine/distributed/errors.h"
#include "tscope/engine/distributed/process_group.h"

namespace tscope::engine::distributed {

std::unique_ptr<ProcessGroup> make_mpi_process_group() {
  throw BackendUnavailable(
      "this build of tensorscope has no MPI backend: install libopenmpi-dev and reconfigure");
}

}  // namespace tscope::engine::distributed
