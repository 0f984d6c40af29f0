#pragma once
// Names of CUDA runtime and driver calls by CUPTI callback id, as a profile shows them
// (cudaLaunchKernel, cuMemcpyHtoD_v2).

#include <cupti_callbacks.h>

#include <string>
#include <string_view>

namespace tscope::profiler::cupti {

// CUPTI tags runtime calls with the toolkit release that introduced them (cudaLaunchKernel_v7000);
// that tag is not part of the call's name and is removed. Driver suffixes such as _v2 are part of
// the exported symbol and stay.
std::string_view without_release_tag(std::string_view name);

// From the tables generated out of cupti_runtime_cbid.h and cupti_driver_cbid.h; empty for an id
// the build's toolkit does not know or another domain.
std::string_view generated_callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId id);

// "cudaLaunchKernel"; for an unknown id "runtime call 1234" or "driver call 1234".
std::string callback_display_name(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                  std::string_view reported_name);

}  // namespace tscope::profiler::cupti
