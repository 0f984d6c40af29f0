#include "cuda_libraries.h"

#include <cublas_api.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudnn_graph.h>
#include <cudnn_version.h>
#include <cupti_result.h>
#include <cupti_version.h>
#include <fmt/format.h>

#include <array>
#include <functional>
#include <string>

#include "tscope/doctor/shared_library.h"

namespace tscope::doctor::detail {
namespace {

// NVML's header is not part of every toolkit install, so its few entry points are declared here
// with the signatures of nvml.h (nvmlReturn_t is an int-sized enum, NVML_SUCCESS is 0).
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
using NvmlInit = NvmlReturn();
using NvmlShutdown = NvmlReturn();
using NvmlSystemGetDriverVersion = NvmlReturn(char* version, unsigned int length);
using NvmlErrorString = const char*(NvmlReturn result);

const std::string kCudaMajor = std::to_string(CUDA_VERSION / 1000);

class LibraryCallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Opens `file`, runs `read_version` on it, and records either the version or why not.
LibraryReport probe(std::string id, std::string name, const std::string& file,
                    const std::function<std::string(const SharedLibrary&)>& read_version) {
  LibraryReport report;
  report.id = std::move(id);
  report.name = std::move(name);
  report.file = file;
  try {
    const SharedLibrary library(file);
    report.version = read_version(library);
    report.loaded = true;
  } catch (const SharedLibraryError& error) {
    report.error = error.what();
  } catch (const LibraryCallError& error) {
    report.error = error.what();
  }
  return report;
}

std::string cudart_version(const SharedLibrary& library) {
  auto runtime_get_version =
      library.symbol<decltype(::cudaRuntimeGetVersion)>("cudaRuntimeGetVersion");
  int encoded = 0;
  if (const cudaError_t status = runtime_get_version(&encoded); status != cudaSuccess) {
    throw LibraryCallError(
        fmt::format("cudaRuntimeGetVersion failed with cudaError_t {}", static_cast<int>(status)));
  }
  return CudaVersion::from_encoded(encoded).to_string();
}

std::string cublas_version(const SharedLibrary& library) {
  // cublasGetProperty needs no handle, so no context (and no GPU) is created to ask.
  auto get_property = library.symbol<decltype(::cublasGetProperty)>("cublasGetProperty");
  std::array<int, 3> parts{};
  const std::array kinds{MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL};
  for (std::size_t part = 0; part < kinds.size(); ++part) {
    if (const cublasStatus_t status = get_property(kinds[part], &parts[part]);
        status != CUBLAS_STATUS_SUCCESS) {
      throw LibraryCallError(
          fmt::format("cublasGetProperty failed with cublasStatus_t {}", static_cast<int>(status)));
    }
  }
  return fmt::format("{}.{}.{}", parts[0], parts[1], parts[2]);
}

std::string cudnn_version(const SharedLibrary& library) {
  auto get_version = library.symbol<decltype(::cudnnGetVersion)>("cudnnGetVersion");
  // cuDNN 9 encodes its version as 10000 * major + 100 * minor + patch.
  const std::size_t encoded = get_version();
  return fmt::format("{}.{}.{}", encoded / 10000, encoded % 10000 / 100, encoded % 100);
}

std::string cupti_version(const SharedLibrary& library) {
  auto get_version = library.symbol<decltype(::cuptiGetVersion)>("cuptiGetVersion");
  auto result_string = library.symbol<decltype(::cuptiGetResultString)>("cuptiGetResultString");
  std::uint32_t api_version = 0;
  if (const CUptiResult status = get_version(&api_version); status != CUPTI_SUCCESS) {
    const char* message = nullptr;
    result_string(status, &message);
    throw LibraryCallError(
        fmt::format("cuptiGetVersion failed: {}", message ? message : "unknown CUPTI error"));
  }
  return fmt::format("API {}", api_version);
}

}  // namespace

CudaVersion built_with_cuda_version() {
  return CudaVersion::from_encoded(CUDA_VERSION);
}

std::vector<LibraryReport> probe_cuda_libraries() {
  return {
      probe("cudart", "CUDA runtime", "libcudart.so." + kCudaMajor, cudart_version),
      probe("cublas", "cuBLAS", "libcublas.so." + kCudaMajor, cublas_version),
      probe("cudnn", "cuDNN", "libcudnn.so." + std::to_string(CUDNN_MAJOR), cudnn_version),
      probe("cupti", "CUPTI", "libcupti.so." + kCudaMajor, cupti_version),
  };
}

NvmlProbe probe_nvml() {
  NvmlProbe result;
  result.library =
      probe("nvml", "NVML", "libnvidia-ml.so.1", [&result](const SharedLibrary& library) {
        auto init = library.symbol<NvmlInit>("nvmlInit_v2");
        auto shutdown = library.symbol<NvmlShutdown>("nvmlShutdown");
        auto get_driver_version =
            library.symbol<NvmlSystemGetDriverVersion>("nvmlSystemGetDriverVersion");
        auto error_string = library.symbol<NvmlErrorString>("nvmlErrorString");
        if (const NvmlReturn status = init(); status != kNvmlSuccess) {
          throw LibraryCallError(fmt::format("nvmlInit_v2 failed: {}", error_string(status)));
        }
        // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80.
        std::array<char, 80> version{};
        const NvmlReturn status =
            get_driver_version(version.data(), static_cast<unsigned int>(version.size()));
        shutdown();
        if (status != kNvmlSuccess) {
          throw LibraryCallError(
              fmt::format("nvmlSystemGetDriverVersion failed: {}", error_string(status)));
        }
        result.driver_release = DriverVersion::parse(version.data());
        return std::string("driver ") + version.data();
      });
  return result;
}

}  // namespace tscope::doctor::detail
