#include "tscope/doctor/doctor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "tscope/doctor/driver_compatibility.h"
#include "tscope/doctor/kernel_coverage.h"
#include "tscope/doctor/own_binaries.h"
#include "tscope/doctor/profiling_permission.h"
#include "tscope/doctor/shared_library.h"
#include "tscope/doctor/visible_devices.h"

#if TSCOPE_DOCTOR_WITH_CUDA
#include "cuda_driver.h"
#include "cuda_libraries.h"
#endif

namespace tscope::doctor {
namespace {

[[maybe_unused]] constexpr const char* kContainerAdvice =
    "In a container, start it with `--gpus all` (docker run) and the NVIDIA Container Toolkit on "
    "the host.";

void check_visible_devices(Report& report) {
  const auto variable = visible_devices_variable();
  const VisibleDevices parsed = parse_visible_devices(variable);
  if (!parsed.is_set) {
    report.diagnoses.push_back({"cuda-visible-devices", Status::ok,
                                "CUDA_VISIBLE_DEVICES is not set: every GPU is visible", ""});
  } else if (parsed.hides_all()) {
    report.diagnoses.push_back(
        {"cuda-visible-devices", Status::error,
         fmt::format("CUDA_VISIBLE_DEVICES=\"{}\" hides every GPU (CUDA stops at the first entry "
                     "that is not an index or a GPU-/MIG- UUID)",
                     *variable),
         "Unset CUDA_VISIBLE_DEVICES, or list the GPUs to use, e.g. CUDA_VISIBLE_DEVICES=0."});
  } else {
    report.diagnoses.push_back({"cuda-visible-devices", Status::ok,
                                fmt::format("CUDA_VISIBLE_DEVICES=\"{}\" makes {} GPU(s) visible",
                                            *variable, parsed.usable_entries),
                                ""});
  }
}

void read_binaries(Report& report, const DoctorOptions& options) {
  const auto paths = options.binaries.empty() ? own_binaries() : options.binaries;
  for (const auto& path : paths) {
    report.binaries.push_back({path.string(), read_fatbin_containers(path)});
  }
}

std::optional<std::string> read_text_file(const char* path) {
  std::ifstream file(path);
  if (!file) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void check_profiling_permission(Report& report) {
  const std::string path(kNvidiaParamsPath);
  const auto params = read_text_file(path.c_str());
  const auto admin_only = params ? parse_profiling_admin_only(*params) : std::nullopt;
  if (!admin_only) {
    report.diagnoses.push_back(
        {"profiling-permission", Status::warning,
         fmt::format("cannot tell whether GPU counters are restricted to administrators: {} {}",
                     path,
                     params ? "has no RmProfilingAdminOnly line"
                            : "is not readable (no NVIDIA kernel module loaded)"),
         "Nothing to do unless CUPTI counters fail; then see the "
         "NVreg_RestrictProfilingToAdminUsers advice in docs/doctor.md."});
    return;
  }
  if (!*admin_only) {
    report.diagnoses.push_back({"profiling-permission", Status::ok,
                                "GPU performance counters are open to every user", ""});
    return;
  }
  const bool is_root = geteuid() == 0;
  report.diagnoses.push_back(
      {"profiling-permission", is_root ? Status::ok : Status::warning,
       fmt::format("the driver restricts GPU performance counters to administrators "
                   "(RmProfilingAdminOnly: 1); this process {} root",
                   is_root ? "is" : "is not"),
       is_root ? ""
               : "Kernel and copy tracing still works. For CUPTI counters (else ERR_NVGPUCTRPERM / "
                 "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): run as root or with CAP_SYS_ADMIN, or set "
                 "`options nvidia NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d/ and "
                 "reboot."});
}

#if TSCOPE_DOCTOR_WITH_CUDA

std::string driver_needed(CudaVersion built_with) {
  const auto full = toolkit_minimum_driver(built_with);
  const auto minor = minor_version_compatibility_minimum(built_with.major);
  std::string text =
      full ? fmt::format(">= {} for CUDA {}", full->to_string(), built_with.to_string())
           : fmt::format("one supporting CUDA {}", built_with.to_string());
  if (minor && (!full || *minor < *full)) {
    text +=
        fmt::format("; any >= {} runs it through minor version compatibility", minor->to_string());
  }
  return text;
}

void check_libraries(Report& report) {
  for (const LibraryReport& library : report.libraries) {
    if (library.loaded) {
      report.diagnoses.push_back(
          {"library-" + library.id, Status::ok,
           fmt::format("{} {} loads ({})", library.name, library.version, library.file), ""});
    } else if (library.id == "nvml") {
      report.diagnoses.push_back({"library-nvml", Status::warning, library.error,
                                  "NVML comes with the NVIDIA driver; without it tscope records no "
                                  "GPU utilization or memory counters."});
    } else {
      report.diagnoses.push_back(
          {"library-" + library.id, Status::warning, library.error,
           fmt::format("Install {} for CUDA {} (in NVIDIA's cudnn-runtime images it is present) or "
                       "add its folder to LD_LIBRARY_PATH.",
                       library.name, report.built_with->to_string())});
    }
  }
}

void check_driver_version(Report& report, CudaVersion built_with, CudaVersion driver_supports) {
  const DriverCompatibility compatibility =
      check_driver_compatibility(built_with, driver_supports, report.driver_release);
  const std::string release =
      report.driver_release ? report.driver_release->to_string() : "unknown (no NVML)";
  const std::string found =
      fmt::format("driver {} supports CUDA {}; tscope was built with CUDA {}", release,
                  driver_supports.to_string(), built_with.to_string());
  switch (compatibility.verdict) {
    case Compatibility::full:
      report.diagnoses.push_back({"driver-version", Status::ok, found, ""});
      return;
    case Compatibility::minor_version:
      report.diagnoses.push_back(
          {"driver-version", Status::warning,
           found + ": runs through CUDA minor version compatibility",
           fmt::format("PTX from CUDA {} cannot be JIT-compiled by this driver and newer features "
                       "are missing; upgrade the driver to {}.",
                       built_with.to_string(), driver_needed(built_with))});
      return;
    case Compatibility::incompatible:
      report.diagnoses.push_back(
          {"driver-version", Status::error,
           found +
               ": the driver is too old (the CUDA runtime fails with cudaErrorInsufficientDriver)",
           fmt::format(
               "Upgrade the NVIDIA driver to {}, or use a tscope built with CUDA {} or older.",
               driver_needed(built_with), driver_supports.to_string())});
      return;
  }
}

std::string init_advice(CUresult code) {
  switch (code) {
    case CUDA_ERROR_NO_DEVICE:
      return fmt::format(
          "Check that `nvidia-smi` lists a GPU and that CUDA_VISIBLE_DEVICES does not hide it. {}",
          kContainerAdvice);
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
      return "The loaded kernel module and libcuda.so.1 come from different driver versions: "
             "reboot after a driver upgrade, or reinstall one driver.";
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return "A CUDA forward-compatibility package is in use on a GPU that does not support it: "
             "remove it from LD_LIBRARY_PATH or upgrade the driver.";
    case CUDA_ERROR_NOT_PERMITTED:
    case CUDA_ERROR_OPERATING_SYSTEM:
      return "Check the permissions of /dev/nvidia* (the user needs read/write access).";
    default:
      return "See the CUDA error above; `nvidia-smi` and the kernel log (dmesg) usually say more.";
  }
}

void check_kernel_images(Report& report, const DeviceReport& device) {
  const std::string check = fmt::format("device-{}-kernel-image", device.index);
  const std::string cc =
      fmt::format("{}.{}", device.compute_capability.major, device.compute_capability.minor);
  const KernelCoverage coverage =
      assess_kernel_coverage(report.binaries, device.compute_capability);
  const std::string rebuild = fmt::format(
      "Rebuild with machine code for this GPU: add \"{}{}-real\" to CMAKE_CUDA_ARCHITECTURES (the "
      "Docker build arg CUDA_ARCHITECTURES).",
      device.compute_capability.major, device.compute_capability.minor);
  if (coverage.units == 0) {
    report.diagnoses.push_back(
        {check, Status::ok, "the checked binaries carry no GPU code, so none can be missing", ""});
  } else if (coverage.failing_units > 0) {
    report.diagnoses.push_back(
        {check, Status::error,
         fmt::format("{} of {} translation units carry no machine code or PTX usable on compute "
                     "capability {}, e.g. {}: their kernels fail with \"no kernel image is "
                     "available for execution on the device\"",
                     coverage.failing_units, coverage.units, cc, coverage.example),
         rebuild});
  } else if (coverage.jit_units > 0) {
    report.diagnoses.push_back(
        {check, Status::warning,
         fmt::format("{} of {} translation units have only PTX for compute capability {}, e.g. {}: "
                     "the driver JIT-compiles it at first launch",
                     coverage.jit_units, coverage.units, cc, coverage.example),
         "Expect a slow first launch (the JIT cache in ~/.nv/ComputeCache keeps the result). " +
             rebuild});
  } else {
    report.diagnoses.push_back(
        {check, Status::ok,
         fmt::format("all {} translation units carry machine code for compute capability {}",
                     coverage.units, cc),
         ""});
  }
}

void check_bandwidth(Report& report, const detail::CudaDriver& driver) {
  // 64 MiB per copy is long enough to reach the link's steady rate and short enough to finish
  // the whole measurement in well under a second.
  constexpr std::size_t kCopyBytes = std::size_t{64} << 20;
  constexpr int kRepetitions = 5;
  try {
    report.bandwidth = driver.measure_host_to_device(0, kCopyBytes, kRepetitions);
    const BandwidthReport& bandwidth = *report.bandwidth;
    const bool pinned_faster = bandwidth.pinned_gb_per_s >= bandwidth.pageable_gb_per_s;
    report.diagnoses.push_back(
        {"bandwidth", Status::ok,
         fmt::format("host to device 0: pinned {:.1f} GB/s, pageable {:.1f} GB/s ({} MiB copies)",
                     bandwidth.pinned_gb_per_s, bandwidth.pageable_gb_per_s, kCopyBytes >> 20),
         pinned_faster ? ""
                       : "Pageable copies beat pinned ones here, which is unusual: check IOMMU and "
                         "NUMA placement."});
  } catch (const detail::CudaCallError& error) {
    report.diagnoses.push_back(
        {"bandwidth", Status::warning, error.what(), "The GPU may be busy or out of memory."});
  }
}

void check_driver(Report& report, const DoctorOptions& options) {
  const CudaVersion built_with = *report.built_with;
  std::optional<detail::CudaDriver> driver;
  try {
    driver.emplace(SharedLibrary(detail::CudaDriver::kLibraryName));
  } catch (const SharedLibraryError& error) {
    report.diagnoses.push_back({"nvidia-driver", Status::error,
                                fmt::format("no NVIDIA driver: {}", error.what()),
                                fmt::format("On a host, install the NVIDIA driver: {}. {}",
                                            driver_needed(built_with), kContainerAdvice)});
    return;
  }
  try {
    report.driver_supports = driver->supported_cuda_version();
  } catch (const detail::CudaCallError& error) {
    report.diagnoses.push_back(
        {"nvidia-driver", Status::error, error.what(), "Reinstall the NVIDIA driver."});
    return;
  }
  report.diagnoses.push_back(
      {"nvidia-driver", Status::ok, fmt::format("{} loads", detail::CudaDriver::kLibraryName), ""});
  check_driver_version(report, built_with, *report.driver_supports);

  try {
    driver->init();
  } catch (const detail::CudaCallError& error) {
    report.diagnoses.push_back(
        {"cuda-init", Status::error, error.what(), init_advice(error.code())});
    return;
  }
  report.diagnoses.push_back({"cuda-init", Status::ok, "cuInit succeeded", ""});

  try {
    const int count = driver->device_count();
    if (count == 0) {
      report.diagnoses.push_back({"devices", Status::error, "the driver reports no CUDA device",
                                  init_advice(CUDA_ERROR_NO_DEVICE)});
      return;
    }
    for (int index = 0; index < count; ++index) {
      report.devices.push_back(driver->device(index));
    }
  } catch (const detail::CudaCallError& error) {
    report.diagnoses.push_back({"devices", Status::error, error.what(), init_advice(error.code())});
    return;
  }
  for (const DeviceReport& device : report.devices) {
    report.diagnoses.push_back(
        {fmt::format("device-{}", device.index), Status::ok,
         fmt::format("{}, compute capability {}.{}, {:.1f} GiB", device.name,
                     device.compute_capability.major, device.compute_capability.minor,
                     static_cast<double>(device.memory_bytes) / (1ull << 30)),
         ""});
    check_kernel_images(report, device);
  }

  if (options.measure_bandwidth) {
    check_bandwidth(report, *driver);
  }
}

#endif

}  // namespace

Report diagnose(const DoctorOptions& options) {
  Report report;
  read_binaries(report, options);
  check_visible_devices(report);
#if TSCOPE_DOCTOR_WITH_CUDA
  report.built_with_cuda = true;
  report.built_with = detail::built_with_cuda_version();
  report.libraries = detail::probe_cuda_libraries();
  detail::NvmlProbe nvml = detail::probe_nvml();
  report.libraries.push_back(std::move(nvml.library));
  report.driver_release = nvml.driver_release;
  check_driver(report, options);
  check_libraries(report);
#else
  report.diagnoses.push_back(
      {"cuda-build", Status::error,
       "this tscope was built without the CUDA toolkit: it has no GPU support",
       "Install the CUDA toolkit and rebuild; CMake turns TSCOPE_CUDA on when it finds one."});
#endif
  check_profiling_permission(report);
  return report;
}

}  // namespace tscope::doctor
