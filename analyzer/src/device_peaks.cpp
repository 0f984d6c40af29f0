#include "tscope/analyzer/device_peaks.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <vector>

namespace tscope::analyzer {
namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
constexpr std::uint64_t kSixtyGb = 60'000'000'000;

// A row matches a device name when every `required` word is in it, no `excluded` word is, and the
// device has at least `min_memory_bytes` (when the trace gives its memory). Words are the name's
// runs of letters and digits, lowercased: "NVIDIA A100-PG509-200" is {nvidia, a100, pg509, 200},
// so "a10" never matches an A100.
struct DeviceRow {
  std::array<std::string_view, 3> required;
  std::array<std::string_view, 2> excluded;
  std::uint64_t min_memory_bytes = 0;
  DevicePeaks peaks;
};

// Rows that share words are ordered most specific first. Rates are the vendors' dense figures
// (the datasheets quote Tensor Core rates with sparsity; those are halved here).
const std::array kRows{
    // NVIDIA Tesla V100 PCIe datasheet (images.nvidia.com, volta-v100-datasheet-update-us):
    // 14 TFLOPS FP32, 112 TFLOPS Tensor, 900 GB/s; 80 SMs at 1380 MHz (Volta whitepaper).
    DeviceRow{{"v100", "pcie"},
              {},
              0,
              {"Tesla V100 PCIe", 80, 1380, 14.0 * kTera, 28.0 * kTera, 0, 0, 112.0 * kTera, 0,
               900 * kGiga}},
    // Same datasheet, SXM2: 15.7 TFLOPS FP32, 125 TFLOPS Tensor (FP16 in, FP32 accumulate),
    // 900 GB/s; 80 SMs at 1530 MHz. The DGX Station's V100-DGXS parts run at the SXM2 rates
    // (NVIDIA DGX Station datasheet: 500 TFLOPS mixed precision from four GPUs).
    DeviceRow{{"v100"},
              {},
              0,
              {"Tesla V100 SXM2 / DGXS", 80, 1530, 15.7 * kTera, 31.4 * kTera, 0, 0, 125.0 * kTera,
               0, 900 * kGiga}},
    // NVIDIA A100 datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf): 19.5 TFLOPS
    // FP32, 156 TF32, 312 FP16/BF16 Tensor (dense); 1,935 GB/s for the 80 GB PCIe card.
    DeviceRow{{"a100", "pcie"},
              {},
              kSixtyGb,
              {"A100 80GB PCIe", 108, 1410, 19.5 * kTera, 78.0 * kTera, 0, 156.0 * kTera,
               312.0 * kTera, 312.0 * kTera, 1935 * kGiga}},
    // Same datasheet: 2,039 GB/s for the 80 GB SXM4 module.
    DeviceRow{{"a100"},
              {},
              kSixtyGb,
              {"A100 80GB SXM4", 108, 1410, 19.5 * kTera, 78.0 * kTera, 0, 156.0 * kTera,
               312.0 * kTera, 312.0 * kTera, 2039 * kGiga}},
    // Same datasheet, A100 40GB (SXM4, PCIe; the PG509-200 board of HGX A100 40GB): 1,555 GB/s;
    // 108 SMs at 1410 MHz (NVIDIA Ampere architecture whitepaper).
    DeviceRow{{"a100"},
              {},
              0,
              {"A100 40GB", 108, 1410, 19.5 * kTera, 78.0 * kTera, 0, 156.0 * kTera, 312.0 * kTera,
               312.0 * kTera, 1555 * kGiga}},
    // NVIDIA H100 PCIe product brief (PB-11133-001): 51 TFLOPS FP32, 756 TF32 / 1,513 FP16 and
    // BF16 Tensor with sparsity, 2,000 GB/s; 114 SMs at 1755 MHz (Hopper architecture whitepaper).
    DeviceRow{{"h100", "pcie"},
              {},
              0,
              {"H100 PCIe", 114, 1755, 51.0 * kTera, 102.0 * kTera, 0, 378.0 * kTera, 756.5 * kTera,
               756.5 * kTera, 2000 * kGiga}},
    // NVIDIA H100 datasheet, SXM5 ("NVIDIA H100 80GB HBM3"): 67 TFLOPS FP32, 989 TF32 / 1,979
    // FP16 and BF16 Tensor with sparsity, 3.35 TB/s; 132 SMs at 1980 MHz. The NVL card differs
    // and is not in the table.
    DeviceRow{{"h100"},
              {"pcie", "nvl"},
              0,
              {"H100 SXM5", 132, 1980, 67.0 * kTera, 133.8 * kTera, 0, 494.7 * kTera, 989.4 * kTera,
               989.4 * kTera, 3350 * kGiga}},
    // NVIDIA H200 datasheet (SXM): the H100 SXM5's rates with 4.8 TB/s of HBM3e.
    DeviceRow{{"h200"},
              {"nvl"},
              0,
              {"H200 SXM", 132, 1980, 67.0 * kTera, 133.8 * kTera, 0, 494.7 * kTera, 989.4 * kTera,
               989.4 * kTera, 4800 * kGiga}},
    // NVIDIA L4 datasheet: 30.3 TFLOPS FP32, 120 TF32 / 242 FP16 and BF16 Tensor with sparsity,
    // 300 GB/s; 58 SMs at 2040 MHz.
    DeviceRow{{"l4"},
              {},
              0,
              {"L4", 58, 2040, 30.3 * kTera, 30.3 * kTera, 0, 60.0 * kTera, 121.0 * kTera,
               121.0 * kTera, 300 * kGiga}},
    // NVIDIA A10 datasheet: 31.2 TFLOPS FP32, 125 TF32 / 250 FP16 and BF16 Tensor with sparsity,
    // 600 GB/s; 72 SMs at 1695 MHz.
    DeviceRow{{"a10"},
              {},
              0,
              {"A10", 72, 1695, 31.2 * kTera, 31.2 * kTera, 0, 62.5 * kTera, 125.0 * kTera,
               125.0 * kTera, 600 * kGiga}},
    // NVIDIA T4 datasheet: 8.1 TFLOPS FP32, 65 TFLOPS FP16 Tensor (mixed precision), 320 GB/s;
    // 40 SMs at 1590 MHz (Turing architecture whitepaper).
    DeviceRow{
        {"t4"},
        {},
        0,
        {"Tesla T4", 40, 1590, 8.1 * kTera, 16.2 * kTera, 0, 0, 65.0 * kTera, 0, 320 * kGiga}},
    // NVIDIA Ampere GA102 architecture whitepaper, appendix A (GeForce RTX 3090): 35.6 TFLOPS
    // FP32, 35.6 TF32 and 71 FP16/BF16 Tensor with FP32 accumulation (dense), 936 GB/s; 82 SMs at
    // 1695 MHz.
    DeviceRow{{"rtx", "3090"},
              {"ti"},
              0,
              {"GeForce RTX 3090", 82, 1695, 35.6 * kTera, 35.6 * kTera, 0, 35.6 * kTera,
               71.0 * kTera, 71.0 * kTera, 936 * kGiga}},
    // NVIDIA Ada Lovelace architecture whitepaper, appendix A (GeForce RTX 4090): 82.6 TFLOPS
    // FP32, 82.6 TF32 and 165.2 FP16/BF16 Tensor with FP32 accumulation (dense), 1,008 GB/s;
    // 128 SMs at 2520 MHz.
    DeviceRow{{"rtx", "4090"},
              {},
              0,
              {"GeForce RTX 4090", 128, 2520, 82.6 * kTera, 82.6 * kTera, 0, 82.6 * kTera,
               165.2 * kTera, 165.2 * kTera, 1008 * kGiga}},
    // NVIDIA Quadro GP100 datasheet: 10.3 TFLOPS FP32, 20.7 TFLOPS FP16, 717 GB/s, no Tensor
    // Cores; 56 SMs at 1442 MHz.
    DeviceRow{{"quadro", "gp100"},
              {},
              0,
              {"Quadro GP100", 56, 1442, 10.3 * kTera, 20.7 * kTera, 0, 0, 0, 0, 717 * kGiga}},
    // AMD Instinct MI210 datasheet: 22.6 TFLOPS FP32 vector, 45.3 FP32 matrix, 181 FP16/BF16
    // matrix, 1.6 TB/s; 104 compute units at 1700 MHz. CDNA 2 has no TF32.
    DeviceRow{{"mi210"},
              {},
              0,
              {"AMD Instinct MI210", 104, 1700, 22.6 * kTera, 181.0 * kTera, 45.3 * kTera, 0,
               181.0 * kTera, 181.0 * kTera, 1638 * kGiga}},
};

std::vector<std::string> words_of(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

bool matches(const DeviceRow& row, const std::vector<std::string>& words,
             std::uint64_t total_memory_bytes) {
  const auto has = [&](std::string_view word) {
    return std::find(words.begin(), words.end(), word) != words.end();
  };
  for (const std::string_view word : row.required)
    if (!word.empty() && !has(word)) return false;
  for (const std::string_view word : row.excluded)
    if (!word.empty() && has(word)) return false;
  return row.min_memory_bytes == 0 || total_memory_bytes >= row.min_memory_bytes;
}

std::string metadata_value(const trace::Trace& trace, const std::string& key) {
  const auto& values = trace.metadata().values;
  const auto found = values.find(key);
  return found == values.end() ? std::string() : found->second;
}

// The device the first kernel that names one ran on; -1 when none does.
std::int32_t first_kernel_device(const trace::Trace& trace) {
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const trace::SpanColumns& spans = trace.track(track).spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != trace::Category::kKernel) continue;
      const trace::SpanDetail* detail = trace.span_detail(track, i);
      if (detail != nullptr && detail->kernel != trace::kNoIndex &&
          trace.kernels()[detail->kernel].device >= 0) {
        return trace.kernels()[detail->kernel].device;
      }
    }
  }
  return -1;
}

}  // namespace

std::span<const DevicePeaks> known_devices() {
  static const std::vector<DevicePeaks> devices = [] {
    std::vector<DevicePeaks> all;
    for (const DeviceRow& row : kRows)
      all.push_back(row.peaks);
    return all;
  }();
  return devices;
}

std::optional<DevicePeaks> find_device_peaks(std::string_view device_name,
                                             std::uint64_t total_memory_bytes) {
  const std::vector<std::string> words = words_of(device_name);
  for (const DeviceRow& row : kRows) {
    if (matches(row, words, total_memory_bytes)) return row.peaks;
  }
  return std::nullopt;
}

std::optional<TraceDevice> trace_device(const trace::Trace& trace, std::int32_t device) {
  std::string name;
  std::string memory;
  if (device < 0) device = first_kernel_device(trace);
  if (device >= 0) {
    const std::string prefix = "device." + std::to_string(device) + ".";
    name = metadata_value(trace, prefix + "name");
    memory = metadata_value(trace, prefix + "total_memory");
  }
  if (name.empty()) {
    // "device.N.name" keys: use them when they all agree.
    for (const auto& [key, value] : trace.metadata().values) {
      if (!key.starts_with("device.") || !key.ends_with(".name")) continue;
      if (!name.empty() && value != name) return std::nullopt;
      name = value;
      memory = metadata_value(trace, key.substr(0, key.size() - 4) + "total_memory");
    }
  }
  if (name.empty()) return std::nullopt;
  std::uint64_t memory_bytes = 0;
  if (!memory.empty()) {
    try {
      memory_bytes = std::stoull(memory);
    } catch (const std::exception&) {
      memory_bytes = 0;
    }
  }
  return TraceDevice{name, find_device_peaks(name, memory_bytes)};
}

}  // namespace tscope::analyzer
