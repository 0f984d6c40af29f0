#include "distributed/nccl_types.h"

#include <string>

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
  std::string message = std::string(call) + " failed: " + ncclGetErrorString(result);
  if (comm != nullptr) {
    if (const char* last = ncclGetLastError(comm); last != nullptr && *last != '\0') {
      message += std::string(" (") + last + ")";
    }
  }
  throw DistributedError(message);
}

}  // namespace tscope::engine::distributed
