#include "distributed/nccl_library.h"

#include <dlfcn.h>

#include <string>

#include "tscope/engine/distributed/errors.h"

namespace tscope::engine::distributed {
namespace {

void* open_nccl() {
  std::string failures;
  for (const char* candidate : {"libnccl.so.2", TSCOPE_NCCL_LIBRARY_PATH}) {
    if (void* handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL); handle != nullptr) return handle;
    const char* error = dlerror();
    failures += std::string(failures.empty() ? "" : "; ") + (error != nullptr ? error : candidate);
  }
  throw BackendUnavailable("cannot load NCCL (" + failures +
                           "): install it or put libnccl.so.2 on LD_LIBRARY_PATH");
}

template <typename Function>
void resolve(void* handle, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(handle, name));
  if (function == nullptr) {
    throw BackendUnavailable(std::string("the loaded NCCL lacks ") + name +
                             " (NCCL 2.13 or newer is needed)");
  }
}

NcclLibrary load() {
  void* handle = open_nccl();
  NcclLibrary library;
  resolve(handle, "ncclGetUniqueId", library.get_unique_id);
  resolve(handle, "ncclCommInitRank", library.comm_init_rank);
  resolve(handle, "ncclCommDestroy", library.comm_destroy);
  resolve(handle, "ncclAllReduce", library.all_reduce);
  resolve(handle, "ncclBroadcast", library.broadcast);
  resolve(handle, "ncclAllGather", library.all_gather);
  resolve(handle, "ncclReduceScatter", library.reduce_scatter);
  resolve(handle, "ncclGetErrorString", library.error_string);
  resolve(handle, "ncclGetLastError", library.last_error);
  return library;
}

}  // namespace

const NcclLibrary& NcclLibrary::instance() {
  static const NcclLibrary library = load();
  return library;
}

}  // namespace tscope::engine::distributed
