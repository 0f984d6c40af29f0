#include "cupti_library.h"

#include <cuda.h>

#include <cstdlib>
#include <vector>

#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler::cupti {
namespace {

std::vector<std::string> library_candidates() {
  const std::string versioned = "libcupti.so." + std::to_string(CUDA_VERSION / 1000);
  std::vector<std::string> candidates;
  if (const char* configured = std::getenv("TSCOPE_CUPTI_LIBRARY");
      configured != nullptr && *configured != '\0') {
    candidates.emplace_back(configured);
  }
  candidates.push_back(versioned);
  candidates.push_back(std::string(TSCOPE_CUPTI_LIBRARY_DIR) + "/" + versioned);
  return candidates;
}

}  // namespace

const CuptiLibrary& CuptiLibrary::instance() {
  // Never destroyed: CUPTI's callbacks may run while static objects are torn down at exit.
  static const CuptiLibrary* const library = new CuptiLibrary(RuntimeLibrary(library_candidates()));
  return *library;
}

CuptiLibrary::CuptiLibrary(RuntimeLibrary library) : library_(std::move(library)) {
  activity_enable = library_.symbol<decltype(::cuptiActivityEnable)>("cuptiActivityEnable");
  activity_disable = library_.symbol<decltype(::cuptiActivityDisable)>("cuptiActivityDisable");
  activity_register_callbacks =
      library_.symbol<decltype(::cuptiActivityRegisterCallbacks)>("cuptiActivityRegisterCallbacks");
  activity_get_next_record =
      library_.symbol<decltype(::cuptiActivityGetNextRecord)>("cuptiActivityGetNextRecord");
  activity_get_num_dropped_records = library_.symbol<decltype(::cuptiActivityGetNumDroppedRecords)>(
      "cuptiActivityGetNumDroppedRecords");
  activity_flush_all = library_.symbol<decltype(::cuptiActivityFlushAll)>("cuptiActivityFlushAll");
  activity_set_attribute =
      library_.symbol<decltype(::cuptiActivitySetAttribute)>("cuptiActivitySetAttribute");
  push_external_correlation_id =
      library_.symbol<decltype(::cuptiActivityPushExternalCorrelationId)>(
          "cuptiActivityPushExternalCorrelationId");
  pop_external_correlation_id = library_.symbol<decltype(::cuptiActivityPopExternalCorrelationId)>(
      "cuptiActivityPopExternalCorrelationId");
  get_timestamp = library_.symbol<decltype(::cuptiGetTimestamp)>("cuptiGetTimestamp");
  set_thread_id_type = library_.symbol<decltype(::cuptiSetThreadIdType)>("cuptiSetThreadIdType");
  get_result_string = library_.symbol<decltype(::cuptiGetResultString)>("cuptiGetResultString");
  activity_register_timestamp_callback =
      library_.optional_symbol<decltype(::cuptiActivityRegisterTimestampCallback)>(
          "cuptiActivityRegisterTimestampCallback");
  get_callback_name =
      library_.optional_symbol<decltype(::cuptiGetCallbackName)>("cuptiGetCallbackName");
}

std::string CuptiLibrary::result_text(CUptiResult result) const {
  const char* text = nullptr;
  if (get_result_string(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  return text;
}

void CuptiLibrary::check(CUptiResult result, std::string_view call) const {
  if (result == CUPTI_SUCCESS) return;
  std::string message = std::string(call) + " failed: " + result_text(result);
  if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
      result == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES) {
    message +=
        ". GPU profiling is restricted to administrators on this machine: run as root, or load "
        "the nvidia kernel module with NVreg_RestrictProfilingToAdminUsers=0 (e.g. "
        "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in /etc/modprobe.d, then reboot)";
  } else if (result == CUPTI_ERROR_NOT_INITIALIZED || result == CUPTI_ERROR_INVALID_DEVICE) {
    message += ". CUPTI needs an NVIDIA driver and GPU (check with `tscope doctor`)";
  }
  throw GpuCaptureError(message);
}

std::string CuptiLibrary::callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId id) const {
  const char* name = nullptr;
  if (get_callback_name == nullptr || get_callback_name(domain, id, &name) != CUPTI_SUCCESS ||
      name == nullptr) {
    return {};
  }
  return name;
}

}  // namespace tscope::profiler::cupti
