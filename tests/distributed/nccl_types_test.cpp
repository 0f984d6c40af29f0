// The NCCL backend's mapping of element types and reductions, and how it reports NCCL failures
// through the NCCL library it loads at run time; runs without a GPU (the group itself needs one:
// tests/gpu and bench/gpu run it there).

#include "distributed/nccl_types.h"

#include <gtest/gtest.h>

#include <string>

#include "distributed/nccl_library.h"
#include "tscope/engine/distributed/errors.h"

namespace tscope::engine::distributed {
namespace {

TEST(NcclTypes, MapTheEnginesElementTypes) {
  EXPECT_EQ(nccl_data_type(DType::kFloat32), ncclFloat32);
  EXPECT_EQ(nccl_data_type(DType::kInt64), ncclInt64);
}

TEST(NcclTypes, AverageIsNcclsOwnAverage) {
  EXPECT_EQ(nccl_reduce_op(ReduceOp::kSum), ncclSum);
  EXPECT_EQ(nccl_reduce_op(ReduceOp::kAverage), ncclAvg);
}

TEST(NcclTypes, AFailedCallThrowsWithTheCallAndNcclsErrorString) {
  EXPECT_NO_THROW(check_nccl(ncclSuccess, "ncclAllReduce"));
  try {
    check_nccl(ncclInvalidArgument, "ncclAllReduce");
    FAIL() << "ncclInvalidArgument was not reported";
  } catch (const DistributedError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("ncclAllReduce failed: "), std::string::npos) << message;
    const char* nccl_text = NcclLibrary::instance().error_string(ncclInvalidArgument);
    EXPECT_NE(message.find(nccl_text), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace tscope::engine::distributed
