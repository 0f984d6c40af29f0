// The NCCL backend: collectives on CUDA tensors, enqueued by the calling thread on the group's own
// stream after the compute stream's work so far, and recorded on that thread as the range of the
// enqueue (the transfer itself is the NCCL kernel that GPU capture records).

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/device_context.h"
#include "distributed/collective_range.h"
#include "distributed/nccl_library.h"
#include "distributed/nccl_types.h"
#include "distributed/work_state.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/distributed/errors.h"
#include "tscope/engine/distributed/process_group.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::distributed {
namespace {

constexpr std::size_t kIdWords =
    (sizeof(ncclUniqueId) + sizeof(std::int64_t) - 1) / sizeof(std::int64_t);

// Rank 0's NCCL id, carried to every rank by the bootstrap group (none in a world of one).
ncclUniqueId agreed_unique_id(ProcessGroup* bootstrap) {
  ncclUniqueId id{};
  std::vector<std::int64_t> words(kIdWords, 0);
  if (bootstrap == nullptr || bootstrap->rank() == 0) {
    check_nccl(NcclLibrary::instance().get_unique_id(&id), "ncclGetUniqueId");
    std::memcpy(words.data(), &id, sizeof id);
  }
  if (bootstrap == nullptr) return id;
  const Tensor on_bootstrap =
      from_vector(words, {static_cast<std::int64_t>(kIdWords)}).to(bootstrap->device());
  bootstrap->broadcast(on_bootstrap, 0);
  words = on_bootstrap.to(Device::cpu()).to_vector<std::int64_t>();
  std::memcpy(&id, words.data(), sizeof id);
  return id;
}

// Done when the event recorded after the collective on the group's stream has passed; keeps the
// collective's tensors alive until then, so the allocator cannot hand their memory to other work.
class NcclWorkState final : public detail::WorkState {
 public:
  NcclWorkState(CollectiveCall call, cudaEvent_t event) : call_(std::move(call)), event_(event) {}
  ~NcclWorkState() override {
    cudaEventSynchronize(event_);
    cudaEventDestroy(event_);
  }
  NcclWorkState(const NcclWorkState&) = delete;
  NcclWorkState& operator=(const NcclWorkState&) = delete;

  void block() override { TSCOPE_CUDA_CHECK(cudaEventSynchronize(event_)); }
  bool done() override {
    const cudaError_t status = cudaEventQuery(event_);
    if (status == cudaErrorNotReady) return false;
    TSCOPE_CUDA_CHECK(status);
    return true;
  }

 private:
  CollectiveCall call_;
  cudaEvent_t event_;
};

class NcclProcessGroup final : public ProcessGroup {
 public:
  NcclProcessGroup(ProcessGroup* bootstrap, Device device)
      : ProcessGroup(Backend::kNccl, bootstrap ? bootstrap->rank() : 0,
                     bootstrap ? bootstrap->world_size() : 1,
                     bootstrap ? bootstrap->local_rank() : 0),
        device_(device),
        ranks_text_(persistent_text(group_ranks_text(world_size()))) {
    const ncclUniqueId id = agreed_unique_id(bootstrap);
    cuda::compute_stream(device_);
    TSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    check_nccl(NcclLibrary::instance().comm_init_rank(&comm_, world_size(), id, rank()),
               "ncclCommInitRank");
    join_run();
  }
  ~NcclProcessGroup() override {
    cudaStreamSynchronize(stream_);
    NcclLibrary::instance().comm_destroy(comm_);
    cudaStreamDestroy(stream_);
  }

  Device device() const override { return device_; }

 protected:
  Work launch(CollectiveCall call) override {
    const cudaStream_t compute = cuda::compute_stream(device_);
    // The inputs are whatever the compute stream has queued so far.
    cuda::wait_for_queued_work(stream_, compute);
    {
      const CollectiveRange recorded(Backend::kNccl, call, world_size(), name(), ranks_text_);
      enqueue(call);
    }
    cudaEvent_t finished = nullptr;
    TSCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&finished, cudaEventDisableTiming));
    TSCOPE_CUDA_CHECK(cudaEventRecord(finished, stream_));
    const Collective op = call.op;
    const std::int64_t sequence = call.sequence;
    return Work(std::make_shared<NcclWorkState>(std::move(call), finished), op, sequence, name());
  }

 private:
  void enqueue(CollectiveCall& call) {
    const NcclLibrary& nccl = NcclLibrary::instance();
    const auto count = static_cast<std::size_t>(call.in_elements);
    const ncclDataType_t type = nccl_data_type(call.dtype);
    switch (call.op) {
      case Collective::kAllReduce:
        check_nccl(nccl.all_reduce(call.input.raw_data(), call.input.raw_data(), count, type,
                                   nccl_reduce_op(call.reduce), comm_, stream_),
                   "ncclAllReduce", comm_);
        return;
      case Collective::kBroadcast:
        check_nccl(nccl.broadcast(call.input.raw_data(), call.input.raw_data(), count, type,
                                  call.root, comm_, stream_),
                   "ncclBroadcast", comm_);
        return;
      case Collective::kAllGather:
        check_nccl(nccl.all_gather(call.input.raw_data(), call.output.raw_data(), count, type,
                                   comm_, stream_),
                   "ncclAllGather", comm_);
        return;
      case Collective::kReduceScatter:
        check_nccl(nccl.reduce_scatter(call.input.raw_data(), call.output.raw_data(),
                                       static_cast<std::size_t>(call.out_elements), type,
                                       nccl_reduce_op(call.reduce), comm_, stream_),
                   "ncclReduceScatter", comm_);
        return;
      case Collective::kBarrier: {
        // NCCL has no barrier; a one-element all-reduce that every rank must join is one, as in
        // PyTorch's ProcessGroupNCCL.
        call.input = zeros({1}, {.device = device_});
        check_nccl(nccl.all_reduce(call.input.raw_data(), call.input.raw_data(), 1, ncclFloat32,
                                   ncclSum, comm_, stream_),
                   "ncclAllReduce (barrier)", comm_);
        return;
      }
    }
  }

  Device device_;
  std::string_view ranks_text_;
  cudaStream_t stream_ = nullptr;
  ncclComm_t comm_ = nullptr;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_nccl_process_group(ProcessGroup& bootstrap, Device device) {
  require_cuda_device(device);
  return std::make_unique<NcclProcessGroup>(&bootstrap, device);
}

std::unique_ptr<ProcessGroup> make_nccl_process_group(Device device) {
  require_cuda_device(device);
  return std::make_unique<NcclProcessGroup>(nullptr, device);
}

}  // namespace tscope::engine::distributed
