#pragma once
// What `tscope doctor` found: one diagnosis per check (status, what was found, what to do) and
// the facts behind them (versions, devices, libraries, embedded GPU code, copy bandwidth).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/doctor/fatbin.h"
#include "tscope/doctor/versions.h"

namespace tscope::doctor {

enum class Status { ok, warning, error };

std::string_view status_name(Status status);

struct Diagnosis {
  std::string check;  // a stable identifier: "nvidia-driver", "device-0-kernel-image", ...
  Status status = Status::ok;
  std::string found;
  std::string action;  // empty when nothing needs doing
};

struct DeviceReport {
  int index = 0;
  std::string name;
  ComputeCapability compute_capability;
  std::uint64_t memory_bytes = 0;
};

struct LibraryReport {
  std::string id;    // "cublas": the stable part of the diagnosis name
  std::string name;  // "cuBLAS"
  std::string file;  // "libcublas.so.13"
  bool loaded = false;
  std::string version;  // empty unless loaded
  std::string error;    // the loader's or the library's message when not
};

struct BinaryReport {
  std::string path;
  std::vector<FatbinContainer> containers;

  // Every distinct image of every container, ordered by kind and architecture.
  std::vector<EmbeddedImage> distinct_images() const;
};

struct BandwidthReport {
  int device = 0;
  std::uint64_t bytes_per_copy = 0;
  double pinned_gb_per_s = 0.0;
  double pageable_gb_per_s = 0.0;
};

struct Report {
  bool built_with_cuda = false;
  std::optional<CudaVersion> built_with;        // CUDA_VERSION of the toolkit we were built with
  std::optional<CudaVersion> driver_supports;   // cuDriverGetVersion
  std::optional<DriverVersion> driver_release;  // NVML
  std::vector<DeviceReport> devices;
  std::vector<LibraryReport> libraries;
  std::vector<BinaryReport> binaries;
  std::optional<BandwidthReport> bandwidth;
  std::vector<Diagnosis> diagnoses;

  // A GPU is usable when no check failed outright: warnings (a missing cuDNN, a slow JIT
  // start, admin-only counters) degrade tscope without stopping it.
  bool gpu_usable() const;
};

}  // namespace tscope::doctor
