#include "distributed/nccl_types.h"

#include <string>

#include "distributed/nccl_library.h"
#include "tscope/engine/distributed/errors.h"

namespace tscope::engine::distributed {

ncclDataType_t nccl_data_type(DType dtype) {
  return dtype == DType::kFloat32 ? ncclFloat32 : ncclInt64;
}

ncclRedOp_t nccl_reduce_op(ReduceOp op) {
  return op == ReduceOp::kSum ? ncclSum : ncclAvg;
}

void check_nccl(ncclResult_t result, const char* call, ncclComm_t comm) {
  if (result == ncclSuccess) return;
  const NcclLibrary& nccl = NcclLibrary::instance();
  std::string message = std::string(call) + " failed: " + nccl.error_string(result);
  if (comm != nullptr) {
    if (const char* last = nccl.last_error(comm); last != nullptr && *last != '\0') {
      message += std::string(" (") + last + ")";
    }
  }
  throw DistributedError(message);
}

}  // namespace tscope::engine::distributed
