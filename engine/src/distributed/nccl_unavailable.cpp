// The NCCL backend of a build without CUDA or without nccl.h and libnccl.

#include "tscope/engine/distributed/errors.h"
#include "tscope/engine/distributed/process_group.h"

namespace tscope::engine::distributed {

namespace {

[[noreturn]] void throw_unavailable() {
  throw BackendUnavailable(
      "this build of tensorscope has no NCCL backend: it needs the CUDA toolkit with nccl.h and "
      "libnccl at configure time");
}

}  // namespace

std::unique_ptr<ProcessGroup> make_nccl_process_group(ProcessGroup&, Device) {
  throw_unavailable();
}

std::unique_ptr<ProcessGroup> make_nccl_process_group(Device) {
  throw_unavailable();
}

}  // namespace tscope::engine::distributed
