#pragma once
// NCCL, loaded when the first NCCL call is made rather than at program start: libnccl is over
// 200 MB, and a program that never trains over NCCL (or a machine without NCCL) must start
// without it.

#include <nccl.h>

namespace tscope::engine::distributed {

struct NcclLibrary {
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclReduceScatter) reduce_scatter = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclGetLastError) last_error = nullptr;

  // Loads libnccl.so.2 from the loader's path, else the toolkit's copy found at configure time,
  // once per process. Throws BackendUnavailable naming what was tried.
  static const NcclLibrary& instance();
};

}  // namespace tscope::engine::distributed
