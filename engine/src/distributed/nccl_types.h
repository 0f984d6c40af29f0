#pragma once
// How the engine's element types and reductions map onto NCCL's, and the check every NCCL call
// goes through; apart from the group itself, so that they are tested without a GPU.

#include <nccl.h>

#include "tscope/engine/distributed/collective.h"

namespace tscope::engine::distributed {

ncclDataType_t nccl_data_type(DType dtype);
ncclRedOp_t nccl_reduce_op(ReduceOp op);

// Throws DistributedError naming `call`, NCCL's error name and its last error message unless
// `result` is ncclSuccess.
void check_nccl(ncclResult_t result, const char* call, ncclComm_t comm = nullptr);

}  // namespace tscope::engine::distributed
