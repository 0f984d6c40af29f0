#pragma once
// CUPTI's entry points, resolved from libcupti at run time (see runtime_library.h), and the one
// place its error codes become messages that say what to do.

#include <cupti.h>

#include <string>
#include <string_view>

#include "runtime_library.h"

namespace tscope::profiler::cupti {

class CuptiLibrary {
 public:
  // Loads libcupti once per process: $TSCOPE_CUPTI_LIBRARY, then libcupti.so.<CUDA major> through
  // the loader's search path, then the build's CUDA toolkit. Throws GpuCaptureError.
  static const CuptiLibrary& instance();

  // Throws GpuCaptureError naming `call` and CUPTI's message when `result` is an error; profiling
  // restricted to administrators gets the remedy in the message.
  void check(CUptiResult result, std::string_view call) const;
  std::string result_text(CUptiResult result) const;
  // CUPTI's name of a runtime or driver callback; empty when this CUPTI cannot name it.
  std::string callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId id) const;

  decltype(&::cuptiActivityEnable) activity_enable;
  decltype(&::cuptiActivityDisable) activity_disable;
  decltype(&::cuptiActivityRegisterCallbacks) activity_register_callbacks;
  decltype(&::cuptiActivityGetNextRecord) activity_get_next_record;
  decltype(&::cuptiActivityGetNumDroppedRecords) activity_get_num_dropped_records;
  decltype(&::cuptiActivityFlushAll) activity_flush_all;
  decltype(&::cuptiActivitySetAttribute) activity_set_attribute;
  decltype(&::cuptiActivityPushExternalCorrelationId) push_external_correlation_id;
  decltype(&::cuptiActivityPopExternalCorrelationId) pop_external_correlation_id;
  decltype(&::cuptiGetTimestamp) get_timestamp;
  decltype(&::cuptiSetThreadIdType) set_thread_id_type;
  decltype(&::cuptiGetResultString) get_result_string;
  // Absent from older CUPTI releases: without it timestamps are mapped by a measured offset.
  decltype(&::cuptiActivityRegisterTimestampCallback) activity_register_timestamp_callback;
  decltype(&::cuptiGetCallbackName) get_callback_name;

 private:
  explicit CuptiLibrary(RuntimeLibrary library);

  RuntimeLibrary library_;
};

}  // namespace tscope::profiler::cupti
